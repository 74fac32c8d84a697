public import AppStoreModels
public import Contracts

/// What the customer state stage keeps per app and user, folded from `iap.entitlements`: each
/// of the customer's purchases as its latest change left it (`iap.customer.v1` on the compacted
/// `iap.customers`, key ``key``).
///
/// It holds purchases, not access: which entitlements a purchase unlocks and what a consumable
/// credits is the catalog's to say, and whether a subscription is still active depends on the
/// time it is read. ``CustomerView`` renders both at read time, so a catalog change or the end
/// of a period needs no event.
public struct CustomerRecord: PipelineEvent, Hashable {
    public static let schema = "iap.customer.v1"

    public private(set) var schema: String = Self.schema
    public var bundleId: String
    public var userId: String
    /// originalTransactionId → the purchase as its latest change left it. A consumable's every
    /// transaction is a purchase of its own (Apple gives it its own originalTransactionId).
    public var purchases: [String: PurchaseRecord]

    public init(bundleId: String, userId: String, purchases: [String: PurchaseRecord] = [:]) {
        self.bundleId = bundleId
        self.userId = userId
        self.purchases = purchases
    }

    /// The compacted topic's key and the record's identity: `<bundleId>|<userId>`.
    public var key: String { Self.key(bundleId: bundleId, userId: userId) }

    public static func key(bundleId: String, userId: String) -> String { "\(bundleId)|\(userId)" }

    /// The change applied last in the purchases' own order: the record whose change is latest by
    /// Apple's dates (ties by eventId), so the same events in any order name the same one.
    public var lastApplied: PurchaseRecord? {
        purchases.values.max { ($0.changeDate, $0.eventId) < ($1.changeDate, $1.eventId) }
    }
}

/// One purchase of a customer as the latest change grant published for it left it.
public struct PurchaseRecord: Codable, Hashable, Sendable {
    public var originalTransactionId: String
    /// The transaction of the latest change (a subscription's latest period).
    public var transactionId: String
    public var productId: String
    public var productType: ProductType?
    public var quantity: Int
    public var action: EntitlementAction
    /// Grant's state of the purchase after the change; derived from `action` for changes
    /// published before grant wrote it.
    public var status: EntitlementStatus
    /// The earliest purchase date of this purchase seen: when its access began.
    public var since: Timestamp?
    public var purchaseDate: Timestamp?
    public var expiresDate: Timestamp?
    public var gracePeriodExpiresDate: Timestamp?
    public var revocationDate: Timestamp?
    public var autoRenewStatus: AutoRenewStatus?
    public var environment: AppStoreEnvironment
    public var orderId: String?
    /// The change's number in the purchase's history (D48); nil for changes published before it.
    public var sequence: Int?
    public var eventId: String

    public init(_ event: EntitlementEvent, since: Timestamp?) {
        originalTransactionId = event.originalTransactionId
        transactionId = event.transactionId
        productId = event.productId
        productType = event.productType
        quantity = event.quantity
        action = event.action
        status = event.status ?? Self.status(of: event.action)
        self.since = since
        purchaseDate = event.purchaseDate
        expiresDate = event.expiresDate
        gracePeriodExpiresDate = event.gracePeriodExpiresDate
        revocationDate = event.revocationDate
        autoRenewStatus = event.autoRenewStatus
        environment = event.environment
        orderId = event.orderId
        sequence = event.sequence
        eventId = event.eventId
    }

    /// When the change happened by Apple's dates: a revocation when revoked, the period's end
    /// when it ended, the purchase otherwise.
    public var changeDate: Timestamp {
        let date: Timestamp? =
            switch action {
            case .revoke: revocationDate ?? purchaseDate
            case .expire: expiresDate ?? purchaseDate
            default: purchaseDate
            }
        return date ?? Timestamp(millisecondsSince1970: 0)
    }

    static func status(of action: EntitlementAction) -> EntitlementStatus {
        switch action {
        case .revoke: .revoked
        case .expire: .expired
        default: .active
        }
    }
}
