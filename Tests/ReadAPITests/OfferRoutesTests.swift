import AppStore
import AppStoreModels
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Processes
import ReadAPI
import TestSupport
import Testing

/// `POST /v1/apps/{bundleId}/offers/signatures`: the four kinds made with the app's offer key
/// and checked against Apple's own library; every refusal says what is wrong, and neither the
/// key nor a signature reaches the log.
@Suite(.timeLimit(.minutes(2))) struct OfferRoutesTests {
    typealias F = ReadAPIFixture
    typealias Check = ApplesOfferCheck
    static let path = "/v1/apps/com.example.game/offers/signatures"

    /// Runs `body` against the routes with `key` as both apps' offer key, on the real clock
    /// (Apple's library checks a JWS's `iat` against its own).
    static func withRoutes(
        _ key: P256.Signing.PrivateKey, logs: LogCapture = LogCapture(),
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await withRedisClient { _, client in
            let routes = try F.routes(
                client, logger: logs.logger(), now: { Timestamp(Date()) }, offers: try F.offers(key))
            try await Application(router: routes.router()).test(.router) { http in try await body(http) }
        }
    }

    /// The answer's JSON, with its status.
    static func post(
        _ http: any TestClientProtocol, _ body: String, path: String = path, key: String = F.signingKey
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await http.execute(
            uri: path, method: .post,
            headers: [.authorization: "Bearer \(key)", .contentType: "application/json"],
            body: ByteBuffer(string: body)
        ) { response in
            let json = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8))
            if response.status == .ok { #expect(response.headers[.cacheControl] == "no-store") }
            return (response.status, try #require(json as? [String: Any]))
        }
    }

    static func signature(_ http: any TestClientProtocol, _ body: String) async throws -> [String: Any] {
        let (status, answer) = try await post(http, body)
        #expect(status == .ok, "\(answer)")
        return answer
    }

    @Test func theFourKindsMatchApplesLibrary() async throws {
        let key = P256.Signing.PrivateKey()
        let logs = LogCapture()
        try await Self.withRoutes(key, logs: logs) { http in
            let product = #""productId": "\#(Check.productId)""#
            let offer = #""offerId": "\#(Check.offerId)""#
            let promotional = try await Self.signature(
                http,
                #"{"kind": "promotional", \#(product), \#(offer), "applicationUsername": "\#(Check.applicationUsername)"}"#
            )
            #expect(promotional["keyIdentifier"] as? String == Check.keyId)
            let jws = { (body: String) async throws -> String in
                let answer = try await Self.signature(http, body)
                #expect(answer["nonce"] == nil && answer["timestamp"] == nil)
                return try #require(answer["signature"] as? String)
            }
            let signatures = Check.Signatures(
                promotional: (
                    try #require(promotional["nonce"] as? String), try #require(promotional["timestamp"] as? Int64),
                    try #require(promotional["signature"] as? String)
                ),
                promotionalJWS: try await jws(
                    #"{"kind": "promotional-jws", \#(product), \#(offer), "transactionId": "\#(Check.transactionId)"}"#),
                promotionalJWSWithoutTransaction: try await jws(
                    #"{"kind": "promotional-jws", \#(product), \#(offer)}"#),
                introductoryEligibility: try await jws(
                    #"{"kind": "introductory-eligibility", \#(product), "allowIntroductoryOffer": false, "transactionId": "\#(Check.transactionId)"}"#
                ),
                advancedCommerce: try await jws(#"{"kind": "advanced-commerce", "request": \#(Check.request)}"#))
            let run = try await Check.run(signatures, keyPEM: key.pemRepresentation)
            #expect(run.exitCode == 0, "\(run.output)")
            #expect(run.output.contains(Check.agreement), "\(run.output)")
            let logged = logs.detailedLines.joined(separator: "\n")
            #expect(logged.contains("offer signed") && logged.contains("kind=introductory-eligibility"))
            #expect(!logged.contains(signatures.promotional.signature) && !logged.contains(signatures.promotionalJWS))
            #expect(!logged.contains("PRIVATE KEY"))
        }
    }

    @Test(arguments: [
        (F.gameKey, "/v1/apps/com.example.game/offers/signatures", 403, "forbidden"),
        (F.supportKey, "/v1/apps/com.example.game/offers/signatures", 403, "forbidden"),
        (F.signingKey, "/v1/apps/com.example.elsewhere/offers/signatures", 403, "forbidden"),
        (F.signingKey, "/v1/apps/com.example.other/offers/signatures", 404, "no_offer_key"),
        ("iapk_nobody", "/v1/apps/com.example.game/offers/signatures", 401, "unauthorized"),
        (F.signingKey, "/v1/apps/com%20game/offers/signatures", 400, "invalid_parameter"),
    ])
    func onlyASigningKeyOfTheAppWithAnOfferKeyGetsASignature(key: String, path: String, status: Int, code: String)
        async throws
    {
        try await Self.withRoutes(P256.Signing.PrivateKey()) { http in
            let (answered, body) = try await Self.post(
                http, #"{"kind": "promotional", "productId": "p", "offerId": "o"}"#, path: path, key: key)
            #expect(answered.code == status && (body["error"] as? [String: Any])?["code"] as? String == code)
        }
    }

    /// An app whose key has no issuer id gets StoreKit 1 signatures only.
    @Test func aKeyWithoutItsIssuerSignsStoreKit1Only() async throws {
        try await Self.withRoutes(P256.Signing.PrivateKey()) { http in
            let path = "/v1/apps/com.example.sk1/offers/signatures"
            let (sk1, _) = try await Self.post(
                http, #"{"kind": "promotional", "productId": "p", "offerId": "o"}"#, path: path)
            #expect(sk1 == .ok)
            let (sk2, body) = try await Self.post(
                http, #"{"kind": "promotional-jws", "productId": "p", "offerId": "o"}"#, path: path)
            let error = body["error"] as? [String: Any]
            #expect(sk2 == .notFound && error?["code"] as? String == "no_offer_key")
            #expect((error?["message"] as? String)?.contains("no issuer id") == true)
        }
    }

    @Test(arguments: [
        ("[1]", "not a JSON object"),
        ("{", "the body is not JSON"),
        (#"{"productId": "p", "offerId": "o"}"#, "kind is missing"),
        (#"{"kind": "discount", "productId": "p", "offerId": "o"}"#, "kind is not of its type"),
        (#"{"kind": "promotional", "offerId": "o"}"#, "productId is 1–256 characters"),
        (#"{"kind": "promotional", "productId": "", "offerId": "o"}"#, "productId is 1–256 characters"),
        (#"{"kind": "promotional", "productId": "p\u0007", "offerId": "o"}"#, "productId is 1–256 characters"),
        (#"{"kind": "promotional", "productId": 7, "offerId": "o"}"#, "productId is not of its type"),
        (#"{"kind": "promotional", "productId": "p", "offerId": "o", "transactionId": "1"}"#, "not transactionId"),
        (#"{"kind": "promotional", "productId": "p", "offerId": "o", "offerID": "o"}"#, "not offerID"),
        (#"{"kind": "promotional-jws", "productId": "p", "offerId": "o", "transactionId": null}"#, "is null"),
        (#"{"kind": "promotional-jws", "productId": "p", "offerId": "o", "transactionId": "1 2"}"#, "transactionId is"),
        (#"{"kind": "introductory-eligibility", "productId": "p", "transactionId": "1"}"#, "allowIntroductoryOffer"),
        (
            #"{"kind": "introductory-eligibility", "productId": "p", "transactionId": "1", "allowIntroductoryOffer": 1}"#,
            "allowIntroductoryOffer is not of its type"
        ),
        (#"{"kind": "advanced-commerce"}"#, "needs request"),
        (#"{"kind": "advanced-commerce", "request": "{}"}"#, "a JSON object"),
    ])
    func aBadBodyIsRefusedSayingWhy(body: String, message: String) async throws {
        try await Self.withRoutes(P256.Signing.PrivateKey()) { http in
            let (status, answer) = try await Self.post(http, body)
            let error = answer["error"] as? [String: Any]
            #expect(status == .badRequest && error?["code"] as? String == "invalid_body")
            #expect((error?["message"] as? String)?.contains(message) == true, "\(answer)")
        }
    }

    @Test func aBodyPastItsLimitIsRefused() async throws {
        try await Self.withRoutes(P256.Signing.PrivateKey()) { http in
            let padding = String(repeating: "x", count: 70_000)
            let (status, answer) = try await Self.post(
                http,
                #"{"kind": "promotional", "productId": "p", "offerId": "o", "applicationUsername": "\#(padding)"}"#)
            #expect(
                status == .contentTooLarge && (answer["error"] as? [String: Any])?["code"] as? String == "invalid_body")
        }
    }

    /// A keys file is read whole at start: a bad line or key file names itself, never the key.
    @Test func aBadOfferKeysFileStopsTheStartNamingTheLine() throws {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        let twice = "a K - k.p8\na K - k.p8"
        #expect(throws: OfferKeyringError.self) { try OfferKeyring.parse(twice, source: "f") { _ in pem } }
        do {
            _ = try OfferKeyring.parse("# apps\n\ncom.example.game K1 - k.p8", source: "f") { _ in
                "-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----"
            }
            Issue.record("a key that is not one was accepted")
        } catch {
            #expect(error.description.hasPrefix("f:3: k.p8 is not a P-256 private key"))
            #expect(!error.description.contains("secret"))
        }
        #expect(throws: OfferKeyringError.self) {
            try OfferKeyring.parse("com.example.game K1 k.p8", source: "f") { _ in pem }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offer-keys-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try pem.write(toFile: directory + "/AuthKey.p8", atomically: true, encoding: .utf8)
        try F.offerKeysFile(keyFile: "AuthKey.p8").write(toFile: directory + "/keys", atomically: true, encoding: .utf8)
        let loaded = try OfferKeyring.load(path: directory + "/keys")
        #expect(
            loaded.bundleIds == ["com.example.game", "com.example.sk1"], "a relative key file is found next to the list"
        )
    }
}
