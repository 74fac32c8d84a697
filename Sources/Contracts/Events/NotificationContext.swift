public import AppStore

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
/// `signedRenewalInfo`).
public struct RenewalDetails: Codable, Hashable, Sendable {
    /// The product the subscription renews into (differs from the current one after a downgrade).
    public var autoRenewProductId: String?
    public var autoRenewStatus: AutoRenewStatus?

    public init(autoRenewProductId: String? = nil, autoRenewStatus: AutoRenewStatus? = nil) {
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
    }

    public init(verified renewal: JWSRenewalInfoDecodedPayload) {
        self.init(autoRenewProductId: renewal.autoRenewProductId, autoRenewStatus: renewal.autoRenewStatus)
    }
}
