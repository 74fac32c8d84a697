public import AppStoreModels

/// The lifecycle event a verified transaction arrived with, when it came in a notification.
public struct NotificationContext: Codable, Hashable, Sendable {
    public var notificationType: NotificationTypeV2
    public var subtype: NotificationSubtype?
    /// Stable across Apple's delivery retries.
    public var notificationUUID: String
    public var signedDate: Timestamp?

    public init(
        notificationType: NotificationTypeV2, subtype: NotificationSubtype? = nil, notificationUUID: String,
        signedDate: Timestamp? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
    }
}

/// The renewal info fields later stages care about (from a notification's verified
/// `signedRenewalInfo`, or the renewal info a reconcile view carries).
public struct RenewalDetails: Codable, Hashable, Sendable {
    /// The product the subscription renews into (differs from the current one after a downgrade).
    public var autoRenewProductId: String?
    public var autoRenewStatus: AutoRenewStatus?
    /// Why the subscription expired (1 cancelled, 2 billing error, 3 price increase declined,
    /// 4 product unavailable, 5 other).
    public var expirationIntent: ExpirationIntent?
    /// Apple is still trying to bill the customer.
    public var isInBillingRetryPeriod: Bool?
    /// Until when the customer keeps access while Apple retries billing (grace period).
    public var gracePeriodExpiresDate: Timestamp?
    /// The offer that applies at the next renewal.
    public var offerType: OfferType?
    public var offerIdentifier: String?
    /// Apple's `commitmentInfo`: what a subscription with a commitment renews into (D59).
    public var commitmentInfo: RenewalCommitmentInfo?
    /// Apple's `advancedCommerceInfo`: the SKUs of an Advanced Commerce subscription's next renewal (D59).
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?

    public init(
        autoRenewProductId: String? = nil,
        autoRenewStatus: AutoRenewStatus? = nil,
        expirationIntent: ExpirationIntent? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDate: Timestamp? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        commitmentInfo: RenewalCommitmentInfo? = nil,
        advancedCommerceInfo: AdvancedCommerceRenewalInfo? = nil
    ) {
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.commitmentInfo = commitmentInfo
        self.advancedCommerceInfo = advancedCommerceInfo
    }

    public init(verified renewal: JWSRenewalInfoDecodedPayload) {
        self.init(
            autoRenewProductId: renewal.autoRenewProductId,
            autoRenewStatus: renewal.autoRenewStatus,
            expirationIntent: renewal.expirationIntent,
            isInBillingRetryPeriod: renewal.isInBillingRetryPeriod,
            gracePeriodExpiresDate: renewal.gracePeriodExpiresDate,
            offerType: renewal.offerType,
            offerIdentifier: renewal.offerIdentifier,
            commitmentInfo: renewal.commitmentInfo,
            advancedCommerceInfo: renewal.advancedCommerceInfo
        )
    }
}
