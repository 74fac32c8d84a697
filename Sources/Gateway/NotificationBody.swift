import Foundation

/// Why a request body was refused. The gateway answers 400 with
/// `{"reason": "malformed_event", "detail": <detail>}` and writes nothing.
public struct MalformedNotification: Error, Sendable, Hashable, CustomStringConvertible {
    /// The contract reason code (docs/events.md) every refused body carries.
    public static let reason = "malformed_event"

    public let detail: String
    public init(_ detail: String) { self.detail = detail }
    public var description: String { "\(Self.reason): \(detail)" }
}

/// The body Apple posts: `{"signedPayload": "<JWS>"}`. Other fields are ignored.
enum NotificationBody {
    /// Extracts `signedPayload`, refusing bodies that are not a JSON object with a non-empty
    /// string under that name. The JWS itself is not examined here.
    static func signedPayload(from bytes: [UInt8]) throws(MalformedNotification) -> String {
        guard !bytes.isEmpty else { throw MalformedNotification("empty body") }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw MalformedNotification("body is not JSON")
        }
        guard let fields = object as? [String: Any] else { throw MalformedNotification("body is not a JSON object") }
        guard let value = fields["signedPayload"], !(value is NSNull) else {
            throw MalformedNotification("signedPayload is missing")
        }
        guard let signedPayload = value as? String else { throw MalformedNotification("signedPayload is not a string") }
        guard !signedPayload.allSatisfy(\.isWhitespace) else { throw MalformedNotification("signedPayload is empty") }
        return signedPayload
    }
}
