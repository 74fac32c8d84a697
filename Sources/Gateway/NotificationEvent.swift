import AppStore
public import Foundation

/// The `iap.notification.v1` event the gateway writes, one per request Apple sends
/// (DESIGN.md, contract): `{"schema", "receivedAt", "signedPayload"}`.
///
/// `signedPayload` is passed on exactly as Apple sent it; verifying it is intake's and
/// verify's job, never the gateway's.
public struct NotificationEvent: Codable, Sendable, Hashable {
    public static let schema = "iap.notification.v1"
    /// Keys longer than this are not a notificationUUID; such records are written unkeyed.
    static let maximumKeyLength = 128

    public var schema: String
    /// ISO-8601 in UTC, whole seconds (`2026-11-21T21:00:00Z`).
    public var receivedAt: String
    public var signedPayload: String

    public init(signedPayload: String, receivedAt: Date) {
        self.schema = Self.schema
        self.receivedAt = receivedAt.formatted(Date.ISO8601FormatStyle())  // UTC unless told otherwise
        self.signedPayload = signedPayload
    }

    /// The event as UTF-8 JSON, the Kafka record value.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Three strings always encode; a failure here would be a Foundation bug.
        return Array((try? encoder.encode(self)) ?? Data())
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
