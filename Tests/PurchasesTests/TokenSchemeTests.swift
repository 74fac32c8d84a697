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
    func md5HalvesMatchesTheVector(userId: String, bundleId: String, token: String) {
        let scheme = AppAccountTokenScheme.md5Halves
        #expect(scheme.token(forUserId: userId, bundleId: bundleId) == token)
        #expect(scheme.token(token.uppercased(), belongsTo: userId, bundleId: bundleId))
        #expect(!scheme.token(token, belongsTo: userId + "x", bundleId: bundleId))
        #expect(!scheme.token(token, belongsTo: userId, bundleId: "com.other"))
        #expect(scheme.userId(fromToken: token) == nil)
    }
}
