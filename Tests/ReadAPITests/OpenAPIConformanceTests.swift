import Crypto
import Foundation
import Hosting
import Logging
import Processes
import ReadAPI
import TestSupport
import Testing
import WorkerCommon

/// The server against its OpenAPI document (docs/openapi.yaml), by schemathesis (PyPI): every
/// documented operation called with generated valid and invalid parameters and bodies, with and
/// without the key; every answer's status, headers and body must be what the document says. The
/// key may read and sign for every app, so generated bundle ids reach the lookup rather than
/// stopping at 403 (schemathesis warns "returned only 401/403" otherwise). Offer signatures are
/// asked of the demo's app, which has an offer key: generated bodies reach the signer, and a body
/// the document refuses (a stray field, a null, a string too long) must be refused with a 4xx. Removing the 400 response from a copy of the
/// document makes it fail with "ST103 Undocumented status code".
///
/// The status and history routes answer 404 for every id nobody published, so their ids are
/// those of the audited event the fixture saves: their 200 bodies are checked against the
/// document's schemas (dropping `terminal` from `PurchaseStatus` fails), and `wait` is `0s`, as a
/// generated wait would hold every request for up to 30 s. With fixed ids schemathesis also tries
/// undeclared methods, which every route answers 404 rather than 405 (Hummingbird's router):
/// that check is left out.
@Suite(.timeLimit(.minutes(3))) struct OpenAPIConformanceTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml").path

    @Test func schemathesisFindsNothingTheDocumentDoesNotSay() async throws {
        try await withRedisDatabase { database in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("iap-api-\(UUID())").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try ReadAPIFixture.keysFile.write(toFile: directory + "/keys", atomically: true, encoding: .utf8)
            try P256.Signing.PrivateKey().pemRepresentation.write(
                toFile: directory + "/AuthKey.p8", atomically: true, encoding: .utf8)
            try ReadAPIFixture.offerKeysFile(keyFile: "AuthKey.p8").write(
                toFile: directory + "/offer-keys", atomically: true, encoding: .utf8)
            try await withClient(try database.configuration()) { client in
                try await ReadAPIFixture.saveCustomer(RedisCustomerStore(client: client))
                try await ReadAPIFixture.saveAudit(RedisAuditIndex(client: client))
            }
            let configuration = """
                [[operations]]
                include-operation-id = "getPurchaseStatus"
                [operations.parameters]
                "path.bundleId" = "com.example.game"
                "path.eventId" = "\(ReadAPIFixture.auditedEventId)"
                "query.wait" = "0s"

                [[operations]]
                include-operation-id = "getTransactionHistory"
                [operations.parameters]
                "path.bundleId" = "com.example.game"
                "path.transactionId" = "\(ReadAPIFixture.auditedTransactionId)"

                [[operations]]
                include-operation-id = "signOffer"
                [operations.parameters]
                "path.bundleId" = "com.example.game"
                """
            try configuration.write(toFile: directory + "/schemathesis.toml", atomically: true, encoding: .utf8)

            let settings = try ReadAPISettings(environment: [
                "IAP_API_HOST": "127.0.0.1", "IAP_API_PORT": "0", "IAP_OPS_HOST": "127.0.0.1", "IAP_OPS_PORT": "0",
                "IAP_API_KEYS_FILE": directory + "/keys", "IAP_OFFER_KEYS_FILE": directory + "/offer-keys",
                "REDIS_URL": database.url,
            ])
            let (ports, listening) = AsyncStream.makeStream(of: Int.self)
            let api = try ReadAPI(
                settings: settings, logger: LogCapture().logger(level: .info), onListening: { listening.yield($0) })
            let stop = AsyncStream<Void>.makeStream()
            let running = Task { try await api.run(until: { for await _ in stop.stream {} }) }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())

            let result = try await ChildProcess.run(
                "schemathesis",
                [
                    "--config-file", directory + "/schemathesis.toml",
                    "run", Self.document, "--url", "http://127.0.0.1:\(port)", "--checks", "all",
                    "--exclude-checks", "unsupported_method",
                    "--header", "Authorization: Bearer \(ReadAPIFixture.everythingKey)", "--max-examples", "25",
                    "--generation-deterministic", "--no-color",
                ],
                environment: ProcessInfo.processInfo.environment, timeout: .seconds(150))
            #expect(result.exitCode == 0, "\(result.output)")
            #expect(result.output.contains("No issues found"), "\(result.output)")
            #expect(!result.output.contains("Warnings:"), "\(result.output)")
            #expect(!result.output.contains("Tested: 0"), "\(result.output)")
            stop.continuation.finish()
            try await running.value
        }
    }
}
