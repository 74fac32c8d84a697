public import AppStore
public import Basics

/// The pipeline's output: one effective entitlement change (`iap.entitlement.v1` on
/// `iap.entitlements`, key: userId). A contract: field names and `null`s are exactly as in
/// docs/events.md; dates are ISO-8601 UTC strings with milliseconds.
public struct EntitlementEvent: PipelineEvent, Hashable {
    public static let schema = "iap.entitlement.v1"

    public private(set) var schema: String = Self.schema
    /// Stable: the same transaction and change always get the same id, so consumers dedupe on it.
    public var eventId: String
    public var action: EntitlementAction
    public var userId: String
    public var orderId: String?
    public var bundleId: String
    public var productId: String
    public var productType: ProductType?
    public var quantity: Int
    public var transactionId: String
    public var originalTransactionId: String
    public var environment: AppStoreEnvironment
    public var purchaseDate: Timestamp?
    public var expiresDate: Timestamp?
    public var revocationDate: Timestamp?
    public var matchedBy: MatchedBy
    public var warnings: [MatchWarning]
    public var source: PurchaseSource

    public init(
        eventId: String,
        action: EntitlementAction,
        userId: String,
        orderId: String?,
        bundleId: String,
        productId: String,
        productType: ProductType?,
        quantity: Int,
        transactionId: String,
        originalTransactionId: String,
        environment: AppStoreEnvironment,
        purchaseDate: Timestamp?,
        expiresDate: Timestamp?,
        revocationDate: Timestamp?,
        matchedBy: MatchedBy,
        warnings: [MatchWarning],
        source: PurchaseSource
    ) {
        self.eventId = eventId
        self.action = action
        self.userId = userId
        self.orderId = orderId
        self.bundleId = bundleId
        self.productId = productId
        self.productType = productType
        self.quantity = quantity
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.matchedBy = matchedBy
        self.warnings = warnings
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case schema, eventId, action, userId, orderId, bundleId, productId, productType, quantity
        case transactionId, originalTransactionId, environment, purchaseDate, expiresDate, revocationDate
        case matchedBy, warnings, source
    }

    /// Writes every field, absent values as JSON `null`: consumers read a fixed shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.schema, forKey: .schema)
        try container.encode(self.eventId, forKey: .eventId)
        try container.encode(self.action, forKey: .action)
        try container.encode(self.userId, forKey: .userId)
        try container.encode(self.orderId, forKey: .orderId)
        try container.encode(self.bundleId, forKey: .bundleId)
        try container.encode(self.productId, forKey: .productId)
        try container.encode(self.productType, forKey: .productType)
        try container.encode(self.quantity, forKey: .quantity)
        try container.encode(self.transactionId, forKey: .transactionId)
        try container.encode(self.originalTransactionId, forKey: .originalTransactionId)
        try container.encode(self.environment, forKey: .environment)
        try container.encode(self.purchaseDate, forKey: .purchaseDate)
        try container.encode(self.expiresDate, forKey: .expiresDate)
        try container.encode(self.revocationDate, forKey: .revocationDate)
        try container.encode(self.matchedBy, forKey: .matchedBy)
        try container.encode(self.warnings, forKey: .warnings)
        try container.encode(self.source, forKey: .source)
    }
}

/// The kind of change (`action` in `iap.entitlement.v1`).
public struct EntitlementAction: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let grant = Self(rawValue: "grant")
    public static let revoke = Self(rawValue: "revoke")
    public static let renew = Self(rawValue: "renew")
    public static let expire = Self(rawValue: "expire")
}
