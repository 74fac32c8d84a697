/// The legacy verifyReceipt answer (`responseBody`). Apple sends most numbers as strings.
public struct VerifyReceiptResponse: Codable, Hashable, Sendable {
    public var status: Int64
    /// "Production" or "Sandbox".
    public var environment: String?
    public var receipt: Receipt?
    public var latestReceipt: String?
    public var latestReceiptInfo: [InApp]?
    public var pendingRenewalInfo: [PendingRenewal]?

    enum CodingKeys: String, CodingKey {
        case status, environment, receipt
        case latestReceipt = "latest_receipt"
        case latestReceiptInfo = "latest_receipt_info"
        case pendingRenewalInfo = "pending_renewal_info"
    }

    public struct Receipt: Codable, Hashable, Sendable {
        public var bundleId: String?
        public var applicationVersion: String?
        public var receiptCreationDateMs: String?
        public var inApp: [InApp]?

        enum CodingKeys: String, CodingKey {
            case bundleId = "bundle_id"
            case applicationVersion = "application_version"
            case receiptCreationDateMs = "receipt_creation_date_ms"
            case inApp = "in_app"
        }
    }

    public struct InApp: Codable, Hashable, Sendable {
        public var transactionId: String?
        public var originalTransactionId: String?
        public var productId: String?
        public var quantity: String?
        public var purchaseDateMs: String?
        public var expiresDateMs: String?
        public var cancellationDateMs: String?
        public var webOrderLineItemId: String?
        public var isTrialPeriod: String?
        public var inAppOwnershipType: String?

        enum CodingKeys: String, CodingKey {
            case transactionId = "transaction_id"
            case originalTransactionId = "original_transaction_id"
            case productId = "product_id"
            case quantity
            case purchaseDateMs = "purchase_date_ms"
            case expiresDateMs = "expires_date_ms"
            case cancellationDateMs = "cancellation_date_ms"
            case webOrderLineItemId = "web_order_line_item_id"
            case isTrialPeriod = "is_trial_period"
            case inAppOwnershipType = "in_app_ownership_type"
        }
    }

    public struct PendingRenewal: Codable, Hashable, Sendable {
        public var autoRenewProductId: String?
        public var originalTransactionId: String?
        public var productId: String?
        public var autoRenewStatus: String?
        public var expirationIntent: String?
        public var isInBillingRetryPeriod: String?

        enum CodingKeys: String, CodingKey {
            case autoRenewProductId = "auto_renew_product_id"
            case originalTransactionId = "original_transaction_id"
            case productId = "product_id"
            case autoRenewStatus = "auto_renew_status"
            case expirationIntent = "expiration_intent"
            case isInBillingRetryPeriod = "is_in_billing_retry_period"
        }
    }
}
