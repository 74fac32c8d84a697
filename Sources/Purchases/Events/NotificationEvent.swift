/// An App Store Server Notification V2 as `iap-gateway` wrote it (`iap.notification.v1` on
/// `iap.notifications`, key: notificationUUID when decodable).
public struct NotificationEvent: PipelineEvent, Hashable {
    public static let schema = "iap.notification.v1"

    public private(set) var schema: String = Self.schema
    public var receivedAt: Timestamp
    /// Apple's `signedPayload`, untouched.
    public var signedPayload: String

    public init(receivedAt: Timestamp, signedPayload: String) {
        self.receivedAt = receivedAt
        self.signedPayload = signedPayload
    }
}
