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
    static func userId(_ text: String?) throws(APIError) -> String {
        guard let text, (1...256).contains(text.count),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError(.badRequest, .invalidParameter, "userId is 1–256 characters without control characters")
        }
        return text
    }

    private static func isBundleScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-")
    }
}
