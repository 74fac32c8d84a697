import Crypto
import Foundation
import Processes
import TestSupport
import Testing

/// `iap offers sign <kind>` as an operator runs it: the four kinds from the built binary, checked
/// against Apple's own library (``ApplesOfferCheck``), and the key file never echoed.
@Suite(.timeLimit(.minutes(2))) struct OfferSignCommandTests {
    typealias Check = ApplesOfferCheck
    static let binaries = ProcessInfo.processInfo.environment["IAP_BIN_DIR"] ?? DeploymentFiles.path(".build/debug")

    @Test func theFourKindsMatchApplesLibrary() async throws {
        let key = P256.Signing.PrivateKey()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("offers-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try key.pemRepresentation.write(toFile: directory + "/AuthKey.p8", atomically: true, encoding: .utf8)
        try Check.request.write(toFile: directory + "/request.json", atomically: true, encoding: .utf8)

        func sign(_ kind: String, _ arguments: [String]) async throws -> [String: Any] {
            let (code, output) = try await Tools.run(
                Self.binaries + "/iap",
                [
                    "offers", "sign", kind, "--key-file", directory + "/AuthKey.p8", "--key-id", Check.keyId,
                    "--issuer-id", Check.issuerId, "--bundle-id", Check.bundleId,
                ] + arguments, environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(60))
            #expect(code == 0, "\(output)")
            #expect(!output.contains("PRIVATE KEY"))
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            #expect(answer["kind"] as? String == kind && answer["keyIdentifier"] as? String == Check.keyId)
            return answer
        }
        let product = ["--product-id", Check.productId]
        let offer = ["--offer-id", Check.offerId]
        let transaction = ["--transaction-id", Check.transactionId]
        let promotional = try await sign(
            "promotional", product + offer + ["--application-username", Check.applicationUsername])
        func jws(_ kind: String, _ arguments: [String]) async throws -> String {
            try #require(try await sign(kind, arguments)["signature"] as? String)
        }
        let signatures = Check.Signatures(
            promotional: (
                try #require(promotional["nonce"] as? String), try #require(promotional["timestamp"] as? Int64),
                try #require(promotional["signature"] as? String)
            ),
            promotionalJWS: try await jws("promotional-jws", product + offer + transaction),
            promotionalJWSWithoutTransaction: try await jws("promotional-jws", product + offer),
            introductoryEligibility: try await jws(
                "introductory-eligibility", product + transaction + ["--allow-introductory-offer", "false"]),
            advancedCommerce: try await jws("advanced-commerce", ["--request-file", directory + "/request.json"]))
        let run = try await Check.run(signatures, keyPEM: key.pemRepresentation)
        #expect(run.exitCode == 0, "\(run.output)")
        #expect(run.output.contains(Check.agreement), "\(run.output)")
    }
}
