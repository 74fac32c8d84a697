import Contracts
import Crypto

/// Ways apps derive `appAccountToken` from their own user id (docs/events.md).
public enum AppAccountTokenScheme: String, Sendable, Hashable, Codable, CaseIterable {
    /// A decimal user id right-aligned in the 32 hex digits of a UUID, left-padded with `F`
    /// (`123456789` → `ffffffff-ffff-ffff-ffff-fff123456789`). `F` never occurs in a decimal
    /// number, so the user id can be read back from the token. Either case is accepted.
    case numericPaddedF
    /// The first 8 bytes of MD5(userId) followed by the first 8 bytes of MD5(bundleId), as a
    /// UUID. Not reversible: it confirms a publisher's userId hint.
    case md5Halves

    /// The token this scheme derives for `userId`; nil when `numericPaddedF` cannot encode it
    /// (not 1–32 decimal digits).
    public func token(forUserId userId: String, bundleId: String) -> String? {
        switch self {
        case .numericPaddedF:
            let digits = Array(userId.utf8)
            guard (1...32).contains(digits.count), digits.allSatisfy(Self.isDecimalDigit) else { return nil }
            let hex = String(repeating: "f", count: 32 - digits.count) + userId
            return Self.hyphenated(hex)
        case .md5Halves:
            let user = Insecure.MD5.hash(data: Array(userId.utf8)).prefix(8)
            let bundle = Insecure.MD5.hash(data: Array(bundleId.utf8)).prefix(8)
            return Digest.uuidString(Array(user) + Array(bundle))
        }
    }

    /// The user id a `numericPaddedF` token encodes; nil for `md5Halves` (not reversible) and
    /// for tokens not of this form.
    public func userId(fromToken token: String) -> String? {
        guard self == .numericPaddedF, let canonical = AppAccountToken.canonical(token) else { return nil }
        let hex = canonical.utf8.filter { $0 != UInt8(ascii: "-") }
        let digits = hex.drop(while: { $0 == UInt8(ascii: "f") })
        guard !digits.isEmpty, digits.allSatisfy(Self.isDecimalDigit) else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }

    /// Whether `token` is the one this scheme derives for `userId` (case-insensitive).
    public func token(_ token: String, belongsTo userId: String, bundleId: String) -> Bool {
        guard let expected = self.token(forUserId: userId, bundleId: bundleId) else { return false }
        return AppAccountToken.canonical(token) == expected
    }

    private static func isDecimalDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func hyphenated(_ hex: String) -> String {
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
