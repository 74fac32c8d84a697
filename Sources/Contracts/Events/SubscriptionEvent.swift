public import AppStoreModels

/// A subscription's lifecycle signal that changes no access (`iap.subscription-event.v1` on
/// `iap.subscription-events`, key: userId; issue 22 item 4, decision D56): auto-renew turned off
/// or on, a billing issue starting, a price increase and its consent, a refund requested or
/// declined, an offer redeemed, a plan change at the next renewal. What a backend's retention
/// and CRM flows listen to, published by grant in the same delivery as the entitlement events
/// (so a signal is never ahead of the change it comes with), once per notification: its
/// `eventId` derives from the notification and the transaction.
///
/// Every field is written, `null` when absent, as `iap.entitlement.v1`.
public struct SubscriptionEvent: PipelineEvent, Hashable {
    public static let schema = "iap.subscription-event.v1"

    public private(set) var schema: String = Self.schema
    /// ``BusinessKeys/subscriptionEventId(notificationUUID:transactionId:)``.
    public var eventId: String
    public var notificationType: NotificationTypeV2
    public var subtype: NotificationSubtype?
    public var notificationUUID: String
    /// When Apple signed the notification.
    public var signedDate: Timestamp?
    public var userId: String
    public var bundleId: String
    public var productId: String
    public var transactionId: String
    public var originalTransactionId: String
    public var environment: AppStoreEnvironment
    /// The end of the transaction's period.
    public var expiresDate: Timestamp?
    public var matchedBy: MatchedBy
    // The renewal info the notification carried (nil fields when it carried none).
    public var autoRenewStatus: AutoRenewStatus?
    public var autoRenewProductId: String?
    public var expirationIntent: ExpirationIntent?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Timestamp?
    public var offerType: OfferType?
    public var offerIdentifier: String?

    public init(
        eventId: String, notificationType: NotificationTypeV2, subtype: NotificationSubtype?,
        notificationUUID: String, signedDate: Timestamp?, userId: String, bundleId: String, productId: String,
        transactionId: String, originalTransactionId: String, environment: AppStoreEnvironment,
        expiresDate: Timestamp?, matchedBy: MatchedBy, renewal: RenewalDetails?
    ) {
        self.eventId = eventId
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.userId = userId
        self.bundleId = bundleId
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.expiresDate = expiresDate
        self.matchedBy = matchedBy
        self.autoRenewStatus = renewal?.autoRenewStatus
        self.autoRenewProductId = renewal?.autoRenewProductId
        self.expirationIntent = renewal?.expirationIntent
        self.isInBillingRetryPeriod = renewal?.isInBillingRetryPeriod
        self.gracePeriodExpiresDate = renewal?.gracePeriodExpiresDate
        self.offerType = renewal?.offerType
        self.offerIdentifier = renewal?.offerIdentifier
    }

    enum CodingKeys: String, CodingKey {
        case schema, eventId, notificationType, subtype, notificationUUID, signedDate, userId, bundleId, productId
        case transactionId, originalTransactionId, environment, expiresDate, matchedBy
        case autoRenewStatus, autoRenewProductId, expirationIntent, isInBillingRetryPeriod, gracePeriodExpiresDate
        case offerType, offerIdentifier
    }

    /// Writes every field, absent values as JSON `null`: consumers read a fixed shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.schema, forKey: .schema)
        try container.encode(self.eventId, forKey: .eventId)
        try container.encode(self.notificationType, forKey: .notificationType)
        try container.encode(self.subtype, forKey: .subtype)
        try container.encode(self.notificationUUID, forKey: .notificationUUID)
        try container.encode(self.signedDate, forKey: .signedDate)
        try container.encode(self.userId, forKey: .userId)
        try container.encode(self.bundleId, forKey: .bundleId)
        try container.encode(self.productId, forKey: .productId)
        try container.encode(self.transactionId, forKey: .transactionId)
        try container.encode(self.originalTransactionId, forKey: .originalTransactionId)
        try container.encode(self.environment, forKey: .environment)
        try container.encode(self.expiresDate, forKey: .expiresDate)
        try container.encode(self.matchedBy, forKey: .matchedBy)
        try container.encode(self.autoRenewStatus, forKey: .autoRenewStatus)
        try container.encode(self.autoRenewProductId, forKey: .autoRenewProductId)
        try container.encode(self.expirationIntent, forKey: .expirationIntent)
        try container.encode(self.isInBillingRetryPeriod, forKey: .isInBillingRetryPeriod)
        try container.encode(self.gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
        try container.encode(self.offerType, forKey: .offerType)
        try container.encode(self.offerIdentifier, forKey: .offerIdentifier)
    }
}
