import Basics
import HTTPTypes

/// The rules of the read API's path parameters (docs/openapi.yaml): checked before any lookup,
/// so a malformed id is a 400 that says what is wrong rather than an empty answer.
enum PathParameters {
    /// An App Store bundle id: letters, digits, `.` and `-`, at most 155 characters.
    static func bundleId(_ text: String?) throws(APIError) -> String {
        guard let text, (1...155).contains(text.count),
            text.unicodeScalars.allSatisfy(Self.isBundleScalar)
        else {
            throw APIError(
                .badRequest, .invalidParameter, "bundleId is 1–155 letters, digits, '.' or '-' (App Store bundle id)")
        }
        return text
    }

    /// A backend's user id: 1–256 characters, no control characters.
    static func userId(_ text: String?) throws(APIError) -> String { try identifier(text, "userId") }

    /// A publisher's eventId: the same rule as a user id.
    static func eventId(_ text: String?) throws(APIError) -> String { try identifier(text, "eventId") }

    /// 1–256 characters, no control characters: the ids a backend chooses.
    ///
    /// The router hands over the raw path segment, so an id with a space, a slash or a letter
    /// outside ASCII arrives percent-encoded (RFC 3986) and is decoded before the rule and the
    /// lookup; a malformed escape is refused like any malformed id. The length is in code points,
    /// as the document's JSON Schema counts it: one `Character` may hold any number of combining
    /// marks.
    private static func identifier(_ raw: String?, _ name: String) throws(APIError) -> String {
        guard let text = raw.flatMap({ percentDecoded($0) }), (1...256).contains(text.unicodeScalars.count),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError(.badRequest, .invalidParameter, "\(name) is 1–256 characters without control characters")
        }
        return text
    }

    /// An App Store transaction id: 1–64 ASCII letters, digits, '.', '-' or '_' (Apple's are digits).
    static func transactionId(_ text: String?) throws(APIError) -> String {
        guard let text, (1...64).contains(text.count),
            text.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
            })
        else {
            throw APIError(
                .badRequest, .invalidParameter, "transactionId is 1–64 ASCII letters, digits, '.', '-' or '_'")
        }
        return text
    }

    /// `wait`: whole seconds, `10` or `10s`, from 0 to `maximum`; absent is 0.
    static func wait(_ text: String?, maximum: Duration) throws(APIError) -> Duration {
        guard let text else { return .zero }
        let digits = text.hasSuffix("s") ? text.dropLast() : Substring(text)
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let seconds = Int(digits), .seconds(seconds) <= maximum
        else {
            throw APIError(
                .badRequest, .invalidParameter,
                "wait is whole seconds from 0 to \(maximum.components.seconds), e.g. wait=10s")
        }
        return .seconds(seconds)
    }

    private static func isBundleScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-")
    }
}
