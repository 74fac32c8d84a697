/// The app purchase as Apple signs it (`AppTransaction`).
public struct AppTransaction: SignedPayload, Hashable {
    /// The environment ("Production", "Sandbox", "Xcode") the app transaction belongs to.
    public var receiptType: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    public var versionExternalIdentifier: Int64?
    public var receiptCreationDate: Timestamp?
    public var originalPurchaseDate: Timestamp?
    public var originalApplicationVersion: String?
    public var deviceVerification: String?
    public var deviceVerificationNonce: String?
    public var preorderDate: Timestamp?
    public var appTransactionId: String?
    public var originalPlatform: String?

    public init() {}

    public var signingDate: Timestamp? { self.receiptCreationDate }
}
