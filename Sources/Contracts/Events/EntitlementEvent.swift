public import AppStoreModels
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
    /// The purchase's state after this change: `active`, `gracePeriod` (access kept until
    /// `gracePeriodExpiresDate`), `billingRetry` (no access while Apple retries billing),
    /// `expired` or `revoked`.
    public var status: EntitlementStatus?
    public var gracePeriodExpiresDate: Timestamp?
    /// Apple's `autoRenewStatus` (0 off, 1 on), as last known for the subscription.
    public var autoRenewStatus: AutoRenewStatus?
    /// Apple's `expirationIntent` when the subscription ended or is in billing retry.
    public var expirationIntent: ExpirationIntent?
    /// Apple's `revocationReason` (0 other, 1 an issue in the app) of a revoked transaction.
    public var revocationReason: RevocationReason?
    /// The offer applied to `transactionId` (Apple's `offerType`: 1 intro, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: OfferType?
    public var offerIdentifier: String?
    /// What the customer paid for `transactionId`, in milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    /// ISO 3166-1 alpha-3 storefront of `transactionId`.
    public var storefront: String?
    /// This change's number among the changes grant published for its purchase
    /// (`originalTransactionId`): 1 for the first, then 2, 3, … in the order grant published
    /// them. Dates cannot order a purchase's changes (a revoke and the reinstate of the same
    /// transaction), and consumers get them shuffled and repeated: keeping per
    /// originalTransactionId only the change with the highest number sees the purchase as if its
    /// changes had arrived in order once. Nil on events published before decision D48.
    public var sequence: Int?
    /// Of an app's own purchase (`productType` `App`, D58): the app version first bought.
    public var originalApplicationVersion: String?
    /// Apple's `commitmentInfo` of `transactionId` (D59).
    public var commitmentInfo: TransactionCommitmentInfo?
    /// Apple's `advancedCommerceInfo` of `transactionId`: the SKUs an Advanced Commerce app grants (D59).
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?

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
        source: PurchaseSource,
        status: EntitlementStatus? = nil,
        gracePeriodExpiresDate: Timestamp? = nil,
        autoRenewStatus: AutoRenewStatus? = nil,
        expirationIntent: ExpirationIntent? = nil,
        revocationReason: RevocationReason? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        price: Int64? = nil,
        currency: String? = nil,
        storefront: String? = nil,
        sequence: Int? = nil,
        originalApplicationVersion: String? = nil,
        commitmentInfo: TransactionCommitmentInfo? = nil,
        advancedCommerceInfo: AdvancedCommerceTransactionInfo? = nil
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
        self.status = status
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.revocationReason = revocationReason
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.sequence = sequence
        self.originalApplicationVersion = originalApplicationVersion
        self.commitmentInfo = commitmentInfo
        self.advancedCommerceInfo = advancedCommerceInfo
    }

    enum CodingKeys: String, CodingKey {
        case schema, eventId, action, userId, orderId, bundleId, productId, productType, quantity
        case transactionId, originalTransactionId, environment, purchaseDate, expiresDate, revocationDate
        case matchedBy, warnings, source
        case status, gracePeriodExpiresDate, autoRenewStatus, expirationIntent, revocationReason
        case offerType, offerIdentifier, price, currency, storefront, sequence, originalApplicationVersion
        case commitmentInfo, advancedCommerceInfo
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
        try container.encode(self.status, forKey: .status)
        try container.encode(self.gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
        try container.encode(self.autoRenewStatus, forKey: .autoRenewStatus)
        try container.encode(self.expirationIntent, forKey: .expirationIntent)
        try container.encode(self.revocationReason, forKey: .revocationReason)
        try container.encode(self.offerType, forKey: .offerType)
        try container.encode(self.offerIdentifier, forKey: .offerIdentifier)
        try container.encode(self.price, forKey: .price)
        try container.encode(self.currency, forKey: .currency)
        try container.encode(self.storefront, forKey: .storefront)
        try container.encode(self.sequence, forKey: .sequence)
        try container.encode(self.originalApplicationVersion, forKey: .originalApplicationVersion)
        try container.encode(self.commitmentInfo, forKey: .commitmentInfo)
        try container.encode(self.advancedCommerceInfo, forKey: .advancedCommerceInfo)
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

/// The state of a purchase (`status` in `iap.entitlement.v1`, and grant's stored state).
public struct EntitlementStatus: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let active = Self(rawValue: "active")
    /// A subscription whose renewal failed, with access kept until `gracePeriodExpiresDate`.
    public static let gracePeriod = Self(rawValue: "gracePeriod")
    /// A subscription whose renewal failed while Apple retries billing: no access.
    public static let billingRetry = Self(rawValue: "billingRetry")
    public static let expired = Self(rawValue: "expired")
    public static let revoked = Self(rawValue: "revoked")

    /// Whether the customer has access in this state.
    public var hasAccess: Bool { self == .active || self == .gracePeriod }
}
