public import AppStoreModels

/// A StoreKit 1 `transactionReceipt` (iOS 6 style), decoded without verification.
public struct TransactionReceipt: Codable, Hashable, Sendable {
    /// "Sandbox" when present; the key is absent for production receipts.
    public var environment: String?
    public var transactionId: String?
    public var originalTransactionId: String?
    public var productId: String?
    /// The bundle id (`bid`).
    public var bundleId: String?
    public var quantity: Int?
    public var purchaseDateMs: Int64?
    public var expiresDateMs: Int64?
    public var webOrderLineItemId: String?
    /// Every string of the decoded `purchase-info` plist, as sent.
    public var purchaseInfo: [String: String]

    public init(purchaseInfo: [String: String] = [:]) {
        self.purchaseInfo = purchaseInfo
    }

    /// Production when the outer plist names no environment.
    public var effectiveEnvironment: AppStoreEnvironment {
        self.environment.map(AppStoreEnvironment.init(rawValue:)) ?? .production
    }
}

/// Decodes StoreKit 1 transaction receipts: base64 of an old-style plist whose `purchase-info`
/// is itself base64 of an old-style plist.
public enum TransactionReceiptDecoder {
    public static let maximumBase64Length = 256 * 1024

    public static func decode(base64: String) throws(ReceiptError) -> TransactionReceipt {
        guard base64.utf8.count <= self.maximumBase64Length else {
            throw ReceiptError(
                .tooLarge, "receipt of \(base64.utf8.count) characters exceeds \(self.maximumBase64Length)")
        }
        let compact = base64.utf8.filter { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
        guard !compact.isEmpty, let outerBytes = Base64.decode(compact) else {
            throw ReceiptError(.invalidBase64, "receipt is not base64")
        }
        guard let outer = OpenStepPlist.dictionary(outerBytes) else {
            throw ReceiptError(.invalidTransactionReceipt, "receipt is not an old-style plist")
        }
        guard let purchaseInfoBase64 = outer["purchase-info"],
            let purchaseInfoBytes = Base64.decode(purchaseInfoBase64.utf8),
            let purchaseInfo = OpenStepPlist.dictionary(purchaseInfoBytes)
        else { throw ReceiptError(.invalidTransactionReceipt, "purchase-info is missing or not a base64 plist") }

        var receipt = TransactionReceipt(purchaseInfo: purchaseInfo)
        receipt.environment = outer["environment"]
        receipt.transactionId = purchaseInfo["transaction-id"]
        receipt.originalTransactionId = purchaseInfo["original-transaction-id"]
        receipt.productId = purchaseInfo["product-id"]
        receipt.bundleId = purchaseInfo["bid"]
        receipt.quantity = purchaseInfo["quantity"].flatMap { Int($0) }
        receipt.purchaseDateMs = purchaseInfo["purchase-date-ms"].flatMap { Int64($0) }
        receipt.expiresDateMs = purchaseInfo["expires-date"].flatMap { Int64($0) }
        receipt.webOrderLineItemId = purchaseInfo["web-order-line-item-id"]
        guard receipt.transactionId != nil else {
            throw ReceiptError(.invalidTransactionReceipt, "purchase-info has no transaction-id")
        }
        return receipt
    }
}
