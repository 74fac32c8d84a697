/// Apple's endpoints as the settings default them (`IAP_APPLE_API_URL`, `IAP_VERIFY_RECEIPT_URL`
/// and their sandbox twins): here, beneath the settings catalog, so it can state the defaults
/// without linking the clients (`AppStoreServerAPIConfiguration`, `VerifyReceiptClient`) that use them.
public enum AppleEndpoints {
    /// The App Store Server API.
    public static let serverAPIProduction = "https://api.storekit.apple.com"
    public static let serverAPISandbox = "https://api.storekit-sandbox.apple.com"
    /// The deprecated `verifyReceipt` endpoint.
    public static let verifyReceiptProduction = "https://buy.itunes.apple.com/verifyReceipt"
    public static let verifyReceiptSandbox = "https://sandbox.itunes.apple.com/verifyReceipt"
}
