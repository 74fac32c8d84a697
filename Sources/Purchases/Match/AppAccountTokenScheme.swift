import Contracts
import Crypto

/// Ways apps derive `appAccountToken` from their own user id (docs/events.md).
///
/// Two are reversible (the token names the user: rule 1 matches on it alone); two are hashes
/// (the token only confirms the publisher's userId hint, and a match by another rule whose user
/// does not own the token is flagged).
public enum AppAccountTokenScheme: String, Sendable, Hashable, Codable, CaseIterable {
    /// A decimal user id right-aligned in the 32 hex digits of a UUID, left-padded with `F`
    /// (`123456789` → `ffffffff-ffff-ffff-ffff-fff123456789`). `F` never occurs in a decimal
    /// number, so the user id can be read back from the token. Either case is accepted.
    case numericPaddedF
    /// The product brief's hash scheme: the middle 16 hex digits of MD5(userId), then the middle
    /// 16 of MD5(userId reversed, by characters), as a UUID. Not reversible.
    case md5ForwardReversed
    /// The product brief's reversible scheme: the user id's UTF-8 bytes (1–15 of them) padded
    /// PKCS#7-style to 16 bytes (n bytes of value n), written as the UUID's 32 hex digits.
    case pkcs7Hex
    /// The first 8 bytes of MD5(userId) followed by the first 8 bytes of MD5(bundleId), as a
    /// UUID (this project's own earlier scheme, once called `md5Halves`). Not reversible.
    case md5UserAndBundle

    /// The setting's names: the cases, and `md5Halves`, the earlier name of `md5UserAndBundle`
    /// (decision D29), so a deployment that set it keeps working.
    public static let settingNames: [String: AppAccountTokenScheme] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) } + [("md5Halves", .md5UserAndBundle)])

    /// Whether the token names the user by itself; otherwise it only confirms a user.
    public var isReversible: Bool {
        switch self {
        case .numericPaddedF, .pkcs7Hex: true
        case .md5ForwardReversed, .md5UserAndBundle: false
        }
    }

    /// The token this scheme derives for `userId`; nil when the scheme cannot encode it
    /// (`numericPaddedF`: not 1–32 decimal digits; `pkcs7Hex`: not 1–15 bytes).
    public func token(forUserId userId: String, bundleId: String) -> String? {
        switch self {
        case .numericPaddedF:
            let digits = Array(userId.utf8)
            guard (1...32).contains(digits.count), digits.allSatisfy(Self.isDecimalDigit) else { return nil }
            return Self.hyphenated(String(repeating: "f", count: 32 - digits.count) + userId)
        case .md5ForwardReversed:
            let forward = Self.hex(Array(Insecure.MD5.hash(data: Array(userId.utf8))))
            let reversed = Self.hex(Array(Insecure.MD5.hash(data: Array(String(userId.reversed()).utf8))))
            return Self.hyphenated(Self.middle16(forward) + Self.middle16(reversed))
        case .pkcs7Hex:
            let bytes = Array(userId.utf8)
            guard (1...15).contains(bytes.count) else { return nil }
            let padding = 16 - bytes.count
            return Self.hyphenated(Self.hex(bytes + Array(repeating: UInt8(padding), count: padding)))
        case .md5UserAndBundle:
            let user = Insecure.MD5.hash(data: Array(userId.utf8)).prefix(8)
            let bundle = Insecure.MD5.hash(data: Array(bundleId.utf8)).prefix(8)
            return Digest.uuidString(Array(user) + Array(bundle))
        }
    }

    /// The user id a reversible scheme's token encodes; nil for the hash schemes and for tokens
    /// not of this scheme's form.
    public func userId(fromToken token: String) -> String? {
        guard let canonical = AppAccountToken.canonical(token) else { return nil }
        let hex = Array(canonical.utf8.filter { $0 != UInt8(ascii: "-") })
        switch self {
        case .numericPaddedF:
            let digits = hex.drop(while: { $0 == UInt8(ascii: "f") })
            guard !digits.isEmpty, digits.allSatisfy(Self.isDecimalDigit) else { return nil }
            return String(decoding: digits, as: UTF8.self)
        case .pkcs7Hex:
            let bytes = stride(from: 0, to: hex.count, by: 2).compactMap {
                UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)
            }
            guard bytes.count == 16, let padding = bytes.last, (1...15).contains(Int(padding)),
                bytes.suffix(Int(padding)).allSatisfy({ $0 == padding })
            else { return nil }
            return String(validating: bytes.prefix(16 - Int(padding)), as: UTF8.self)
        case .md5ForwardReversed, .md5UserAndBundle:
            return nil
        }
    }

    /// Whether `token` is the one this scheme derives for `userId` (case-insensitive).
    public func token(_ token: String, belongsTo userId: String, bundleId: String) -> Bool {
        guard let expected = self.token(forUserId: userId, bundleId: bundleId) else { return false }
        return AppAccountToken.canonical(token) == expected
    }

    private static func isDecimalDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] }, as: UTF8.self)
    }

    /// Hex digits 8..<24 of a 32-digit MD5.
    private static func middle16(_ hex: String) -> String {
        String(hex.dropFirst(8).prefix(16))
    }

    private static func hyphenated(_ hex: String) -> String {
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
