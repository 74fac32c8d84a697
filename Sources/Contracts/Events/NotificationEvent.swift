public import AppStoreModels

/// An App Store Server Notification V2 as `iap-gateway` writes it (`iap.notification.v1` on
/// `iap.notifications`, key: notificationUUID when decodable): `{"receivedAt", "schema",
/// "signedPayload"}`, plus `"source": "reconcile"` when `iap-reconcile` recovered it from
/// Apple's notification history (decision D32).
///
/// `signedPayload` is passed on exactly as Apple sent it; verifying it is intake's and verify's
/// job, never the gateway's. `receivedAt` is a ``Timestamp`` with milliseconds like every
/// timestamp of the pipeline (decision D22).
public struct NotificationEvent: PipelineEvent, Hashable {
    public static let schema = "iap.notification.v1"
    /// Keys longer than this are not a notificationUUID; such records are written unkeyed.
    static let maximumKeyLength = 128

    public private(set) var schema: String = Self.schema
    /// When the gateway received the notification.
    public var receivedAt: Timestamp
    /// Apple's `signedPayload`, untouched.
    public var signedPayload: String
    /// Absent for what the gateway received; `reconcile` for a notification `iap-reconcile`
    /// republished from Get Notification History, which intake carries into the entitlement
    /// events' `source`. Any other value is read as a plain notification.
    public var source: PurchaseSource?

    public init(receivedAt: Timestamp, signedPayload: String, source: PurchaseSource? = nil) {
        self.receivedAt = receivedAt
        self.signedPayload = signedPayload
        self.source = source
    }

    /// The record key: the notification's `notificationUUID`, read from the JWS payload
    /// **without verification** and used only for partitioning (Apple's retries of one
    /// notification land on one partition, in order). Nil when the payload does not decode or
    /// carries no usable UUID; such notifications are still written.
    public static func key(forSignedPayload signedPayload: String) -> String? {
        guard let jws = try? UnverifiedJWS(signedPayload),
            let probe = try? jws.decodePayload(as: KeyProbe.self),
            let uuid = probe.notificationUUID,
            !uuid.isEmpty, uuid.utf8.count <= maximumKeyLength
        else { return nil }
        return uuid
    }

    /// Only the field the key needs, so a payload whose other fields the models do not accept
    /// (a new enum value, an odd date) still gets its key.
    private struct KeyProbe: Decodable {
        var notificationUUID: String?
    }
}
