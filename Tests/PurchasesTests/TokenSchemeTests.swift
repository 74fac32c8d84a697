import Purchases
import Testing

/// Per-user appAccountToken schemes, both directions, fixed vectors (computed independently
/// with Python's hashlib/uuid).
@Suite(.timeLimit(.minutes(2))) struct TokenSchemeTests {
    @Test(arguments: [
        ("123456789", "ffffffff-ffff-ffff-ffff-fff123456789"),
        ("007", "ffffffff-ffff-ffff-ffff-fffffffff007"),
        ("11111111111111111111111111111111", "11111111-1111-1111-1111-111111111111"),
    ])
    func numericPaddedFRoundTrips(userId: String, token: String) {
        let scheme = AppAccountTokenScheme.numericPaddedF
        #expect(scheme.token(forUserId: userId, bundleId: "any") == token)
        #expect(scheme.userId(fromToken: token) == userId)
        #expect(scheme.userId(fromToken: token.uppercased()) == userId)
        #expect(scheme.token(token.uppercased(), belongsTo: userId, bundleId: "any"))
    }

    @Test(arguments: ["u-123", "", "123456789012345678901234567890123", "12a"])
    func numericPaddedFEncodesOnlyDecimalIds(userId: String) {
        #expect(AppAccountTokenScheme.numericPaddedF.token(forUserId: userId, bundleId: "b") == nil)
    }

    @Test(arguments: [
        "7e3d2a1c-0000-4000-8000-000000000001",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "ffffffff-ffff-ffff-ffff-fff12345678a",
        "ffffffff-ffff-ffff-ffff-ff1f23456789",
        "not a uuid",
    ])
    func numericPaddedFRejectsOtherTokens(token: String) {
        #expect(AppAccountTokenScheme.numericPaddedF.userId(fromToken: token) == nil)
    }

    @Test(arguments: [
        ("u-123", "com.example.game", "38285458-80c5-2250-909b-4a778ec65d09"),
        ("42", "com.example.game", "a1d0c6e8-3f02-7327-909b-4a778ec65d09"),
    ])
    func md5UserAndBundleMatchesTheVector(userId: String, bundleId: String, token: String) {
        let scheme = AppAccountTokenScheme.md5UserAndBundle
        #expect(scheme.token(forUserId: userId, bundleId: bundleId) == token)
        #expect(scheme.token(token.uppercased(), belongsTo: userId, bundleId: bundleId))
        #expect(!scheme.token(token, belongsTo: userId + "x", bundleId: bundleId))
        #expect(!scheme.token(token, belongsTo: userId, bundleId: "com.other"))
        #expect(scheme.userId(fromToken: token) == nil)
    }

    /// The brief's hash scheme. Vectors from Python: `h = hashlib.md5(u.encode()).hexdigest()[8:24]
    /// + hashlib.md5(u[::-1].encode()).hexdigest()[8:24]`, hyphenated 8-4-4-4-12.
    @Test(arguments: [
        ("u-123", "80c52250-b773-591c-d31c-93c2990d8f62"),
        ("1234567890", "f82d132f-9bb0-18ca-e32e-07b61c9f0251"),
        ("player@example.com", "c0264d3d-46b7-d332-7735-9a406de98ce0"),
        ("ユーザー", "682c0942-6b8b-f191-c333-3cbd5c653df5"),
    ])
    func md5ForwardReversedMatchesTheVector(userId: String, token: String) {
        let scheme = AppAccountTokenScheme.md5ForwardReversed
        #expect(scheme.token(forUserId: userId, bundleId: "ignored") == token)
        #expect(scheme.token(forUserId: userId, bundleId: "com.other") == token, "the bundle id plays no part")
        #expect(scheme.token(token.uppercased(), belongsTo: userId, bundleId: "b"))
        #expect(!scheme.token(token, belongsTo: String(userId.reversed()), bundleId: "b"))
        #expect(scheme.userId(fromToken: token) == nil)
        #expect(!scheme.isReversible)
    }

    /// The brief's reversible scheme. Vectors from Python: `b = u.encode(); p = 16 - len(b);
    /// (b + bytes([p]) * p).hex()`, hyphenated 8-4-4-4-12.
    @Test(arguments: [
        ("u-123", "752d3132-330b-0b0b-0b0b-0b0b0b0b0b0b"),
        ("123456789012345", "31323334-3536-3738-3930-313233343501"),
        ("a", "610f0f0f-0f0f-0f0f-0f0f-0f0f0f0f0f0f"),
    ])
    func pkcs7HexRoundTrips(userId: String, token: String) {
        let scheme = AppAccountTokenScheme.pkcs7Hex
        #expect(scheme.token(forUserId: userId, bundleId: "any") == token)
        #expect(scheme.userId(fromToken: token) == userId)
        #expect(scheme.userId(fromToken: token.uppercased()) == userId)
        #expect(scheme.isReversible)
    }

    @Test(arguments: ["", "1234567890123456", "ユーザーID12"])  // 0, 16 and 16 UTF-8 bytes
    func pkcs7HexEncodesOnlyOneToFifteenBytes(userId: String) {
        #expect(AppAccountTokenScheme.pkcs7Hex.token(forUserId: userId, bundleId: "b") == nil)
    }

    @Test(arguments: [
        "10101010-1010-1010-1010-101010101010",  // 16 bytes of padding: an empty user id
        "752d3132-330b-0b0b-0b0b-0b0b0b0b0b0a",  // the last byte says 10, the others disagree
        "752d3132-3300-0000-0000-000000000000",  // padding 0 is not PKCS#7
        "ff2d3132-330b-0b0b-0b0b-0b0b0b0b0b0b",  // not UTF-8
        "not a uuid",
    ])
    func pkcs7HexRejectsOtherTokens(token: String) {
        #expect(AppAccountTokenScheme.pkcs7Hex.userId(fromToken: token) == nil)
    }

    /// `md5Halves`, the earlier name of `md5UserAndBundle`, still configures it (decision D29).
    @Test func theSettingAcceptsEverySchemeAndTheEarlierName() {
        #expect(AppAccountTokenScheme.settingNames["md5Halves"] == .md5UserAndBundle)
        for scheme in AppAccountTokenScheme.allCases {
            #expect(AppAccountTokenScheme.settingNames[scheme.rawValue] == scheme)
        }
    }
}
