public import AppStore

/// What grant knows about one purchase (originalTransactionId): the basis for deciding which
/// changes are effective. Field reference: docs/events.md.
public struct EntitlementState: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Hashable, Sendable {
        case active
        case expired
        case revoked
    }

    public var originalTransactionId: String
    public var userId: String
    public var orderId: String?
    /// The product currently (or last) entitled; changes on upgrades and downgrades.
    public var productId: String
    public var productType: ProductType?
    /// The transaction that last set the entitlement (the latest renewal of a subscription).
    public var transactionId: String
    public var purchaseDate: Timestamp?
    public var expiresDate: Timestamp?
    public var status: Status
    /// The latest Apple signing date applied: older updates must not undo newer ones.
    public var signedDate: Timestamp?
    /// Transactions of this purchase revoked (refund, family revoke), until reinstated.
    public var revokedTransactionIds: [String]

    public init(
        originalTransactionId: String,
        userId: String,
        orderId: String?,
        productId: String,
        productType: ProductType?,
        transactionId: String,
        purchaseDate: Timestamp?,
        expiresDate: Timestamp?,
        status: Status,
        signedDate: Timestamp?,
        revokedTransactionIds: [String] = []
    ) {
        self.originalTransactionId = originalTransactionId
        self.userId = userId
        self.orderId = orderId
        self.productId = productId
        self.productType = productType
        self.transactionId = transactionId
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.status = status
        self.signedDate = signedDate
        self.revokedTransactionIds = revokedTransactionIds
    }
}
