import AppStore
import AppStoreModels
import Crypto
import Foundation
import TestSupport
import Testing

/// Tampered and garbage input gets the right refusal code, never a crash.
@Suite(.timeLimit(.minutes(2))) struct JWSRefusalTests {
    static let vectorPath = "jws/sandbox-consumable-transaction.jws"

    static func verifier() throws -> SignedDataVerifier {
        try SignedDataVerifier(.init(bundleId: "com.goodheartapp", environment: .sandbox))
    }

    static func parts() throws -> [String] {
        try Vectors.text(vectorPath).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    static func header() throws -> [String: Any] {
        let data = try #require(TestSigningChain.base64URLDecode(try parts()[0]))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func encode(_ object: Any) throws -> String {
        TestSigningChain.base64URL(try JSONSerialization.data(withJSONObject: object))
    }

    func expectRefusal(_ jws: String, _ code: VerificationError.Code, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let result = try await Self.verifier().verifyAndDecodeTransaction(jws)
        guard case .invalid(let error) = result else {
            Issue.record("expected \(code), got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }

    @Test func untouchedVectorIsValid() async throws {
        let result = try await Self.verifier().verifyAndDecodeTransaction(try Vectors.text(Self.vectorPath))
        #expect(result.payload != nil)
    }

    @Test func changedPayloadByteFailsTheSignature() async throws {
        var parts = try Self.parts()
        var payload = try #require(TestSigningChain.base64URLDecode(parts[1]))
        let original = try #require(String(data: payload, encoding: .utf8))
        payload = Data(original.replacingOccurrences(of: "gh_super_good_ticket_1", with: "gh_super_good_ticket_9").utf8)
        #expect(payload != Data(original.utf8))
        parts[1] = TestSigningChain.base64URL(payload)
        try await self.expectRefusal(parts.joined(separator: "."), .verificationFailure)
    }

    @Test func algNoneIsRefused() async throws {
        var parts = try Self.parts()
        var header = try Self.header()
        header["alg"] = "none"
        parts[0] = try Self.encode(header)
        parts[2] = ""
        try await self.expectRefusal(parts.joined(separator: "."), .invalidJWTFormat)
    }

    /// The classic key-confusion attack: HMAC keyed with the (public) leaf key bytes.
    @Test func hs256WithThePublicKeyAsSecretIsRefused() async throws {
        var parts = try Self.parts()
        var header = try Self.header()
        header["alg"] = "HS256"
        parts[0] = try Self.encode(header)
        let leafBase64 = try #require((header["x5c"] as? [String])?.first)
        let secret = SymmetricKey(data: try #require(Data(base64Encoded: leafBase64)))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(parts[0]).\(parts[1])".utf8), using: secret)
        parts[2] = TestSigningChain.base64URL(Data(mac))
        try await self.expectRefusal(parts.joined(separator: "."), .invalidJWTFormat)
    }

    @Test func twoCertificatesAreRefused() async throws {
        var parts = try Self.parts()
        var header = try Self.header()
        header["x5c"] = Array(try #require(header["x5c"] as? [String]).prefix(2))
        parts[0] = try Self.encode(header)
        try await self.expectRefusal(parts.joined(separator: "."), .invalidJWTFormat)
    }

    @Test func missingX5cIsRefused() async throws {
        var parts = try Self.parts()
        var header = try Self.header()
        header["x5c"] = nil
        parts[0] = try Self.encode(header)
        try await self.expectRefusal(parts.joined(separator: "."), .invalidJWTFormat)
    }

    @Test func certificateThatIsNotDERIsRefused() async throws {
        var parts = try Self.parts()
        var header = try Self.header()
        var x5c = try #require(header["x5c"] as? [String])
        x5c[0] = Data("not a certificate".utf8).base64EncodedString()
        header["x5c"] = x5c
        parts[0] = try Self.encode(header)
        try await self.expectRefusal(parts.joined(separator: "."), .invalidCertificate)
    }

    @Test func truncatedSignatureIsRefused() async throws {
        var parts = try Self.parts()
        parts[2] = String(parts[2].dropLast(4))
        try await self.expectRefusal(parts.joined(separator: "."), .verificationFailure)
    }

    @Test func signatureOfAnotherKeyIsRefused() async throws {
        var parts = try Self.parts()
        let signature = try P256.Signing.PrivateKey().signature(for: Data("\(parts[0]).\(parts[1])".utf8))
        parts[2] = TestSigningChain.base64URL(signature.rawRepresentation)
        try await self.expectRefusal(parts.joined(separator: "."), .verificationFailure)
    }

    static let garbage: [String] = [
        "",
        ".",
        "..",
        "a.b",
        "a.b.c.d",
        "!!!.???.***",
        "e30.e30.",
        "W10.e30.AAAA",
        "\(TestSigningChain.base64URL(Data("[1,2]".utf8))).\(TestSigningChain.base64URL(Data("{}".utf8))).AAAA",
        "\(TestSigningChain.base64URL(Data("{\"alg\":\"ES256\",\"x5c\":\"nope\"}".utf8))).e30.AAAA",
        "\(TestSigningChain.base64URL(Data("{\"alg\":\"ES256\"}".utf8))).\(TestSigningChain.base64URL(Data("[]".utf8))).AAAA",
        "\(TestSigningChain.base64URL(Data("null".utf8))).e30.AAAA",
        "e30.\(TestSigningChain.base64URL(Data("{\"signedDate\":\"yesterday\"}".utf8))).AAAA",
        String(repeating: "A", count: 1_000_000),
        String(repeating: "A", count: 400_000) + "." + String(repeating: "B", count: 400_000) + "."
            + String(repeating: "C", count: 400_000),
        "ey\u{0}.\u{1F600}.x",
    ]

    @Test(arguments: garbage)
    func garbageIsAFormatError(input: String) async throws {
        try await self.expectRefusal(input, .invalidJWTFormat)
    }
}
