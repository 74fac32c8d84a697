public import AppStoreModels
public import Contracts

/// What grant knows about one purchase (originalTransactionId): the basis for deciding which
/// changes are effective. Field reference: docs/events.md.
///
/// The key is the originalTransactionId, which Apple keeps for every transaction of a
/// subscription, across renewals and across upgrades, downgrades and crossgrades within its
/// subscription group: one state per subscription (group), so a product change replaces the
/// entitled product instead of adding a second entitlement.
public struct EntitlementState: Codable, Hashable, Sendable {
    public typealias Status = EntitlementStatus

    public var originalTransactionId: String
    public var userId: String
    public var orderId: String?
    /// The product currently (or last) entitled; changes on upgrades and downgrades.
    public var productId: String
    public var productType: ProductType?
    /// The transaction that last set the entitlement (the latest renewal of a subscription).
    public var transactionId: String
    public var purchaseDate: Timestamp?
    /// The end of the current period (Apple's `expiresDate` of `transactionId`).
    public var expiresDate: Timestamp?
    public var status: Status
    /// The latest Apple signing date applied: older updates must not undo newer ones.
    public var signedDate: Timestamp?
    /// Transactions of this purchase revoked (refund, family revoke), until reinstated.
    public var revokedTransactionIds: [String]
    /// Access end while `status` is `gracePeriod`.
    public var gracePeriodExpiresDate: Timestamp?
    /// The renewal info last seen: recorded from notifications that change no access
    /// (DID_CHANGE_RENEWAL_STATUS, DID_CHANGE_RENEWAL_PREF) and carried on later events.
    public var autoRenewStatus: AutoRenewStatus?
    public var autoRenewProductId: String?
    public var expirationIntent: ExpirationIntent?
    /// Why the current transaction was revoked.
    public var revocationReason: RevocationReason?
    /// How many changes grant has published for this purchase: the last `sequence` handed out,
    /// so the next change is numbered after it (decision D48). 0 in states saved before D48.
    public var changes: Int

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
        revokedTransactionIds: [String] = [],
        gracePeriodExpiresDate: Timestamp? = nil,
        autoRenewStatus: AutoRenewStatus? = nil,
        autoRenewProductId: String? = nil,
        expirationIntent: ExpirationIntent? = nil,
        revocationReason: RevocationReason? = nil,
        changes: Int = 0
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
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductId = autoRenewProductId
        self.expirationIntent = expirationIntent
        self.revocationReason = revocationReason
        self.changes = changes
    }
}

extension EntitlementState {
    /// Synthesized but for `changes`, which states saved before decision D48 lack: they read as
    /// 0, as the count of a purchase whose changes were never numbered.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            originalTransactionId: try container.decode(String.self, forKey: .originalTransactionId),
            userId: try container.decode(String.self, forKey: .userId),
            orderId: try container.decodeIfPresent(String.self, forKey: .orderId),
            productId: try container.decode(String.self, forKey: .productId),
            productType: try container.decodeIfPresent(ProductType.self, forKey: .productType),
            transactionId: try container.decode(String.self, forKey: .transactionId),
            purchaseDate: try container.decodeIfPresent(Timestamp.self, forKey: .purchaseDate),
            expiresDate: try container.decodeIfPresent(Timestamp.self, forKey: .expiresDate),
            status: try container.decode(Status.self, forKey: .status),
            signedDate: try container.decodeIfPresent(Timestamp.self, forKey: .signedDate),
            revokedTransactionIds: try container.decode([String].self, forKey: .revokedTransactionIds),
            gracePeriodExpiresDate: try container.decodeIfPresent(Timestamp.self, forKey: .gracePeriodExpiresDate),
            autoRenewStatus: try container.decodeIfPresent(AutoRenewStatus.self, forKey: .autoRenewStatus),
            autoRenewProductId: try container.decodeIfPresent(String.self, forKey: .autoRenewProductId),
            expirationIntent: try container.decodeIfPresent(ExpirationIntent.self, forKey: .expirationIntent),
            revocationReason: try container.decodeIfPresent(RevocationReason.self, forKey: .revocationReason),
            changes: try container.decodeIfPresent(Int.self, forKey: .changes) ?? 0
        )
    }
}
