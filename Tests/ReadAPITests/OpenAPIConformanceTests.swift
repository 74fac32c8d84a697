import Foundation
import Hosting
import Logging
import Processes
import ReadAPI
import TestSupport
import Testing
import WorkerCommon

/// The server against its OpenAPI document (docs/openapi.yaml), by schemathesis (PyPI): every
/// documented operation called with generated valid and invalid parameters, with and without the
/// key; every answer's status, headers and body must be what the document says. The key may read
/// every app, so generated bundle ids reach the lookup rather than stopping at 403 (schemathesis
/// warns "returned only 401/403" otherwise). Removing the 400 response from a copy of the
/// document makes it fail with "ST103 Undocumented status code".
@Suite(.timeLimit(.minutes(3))) struct OpenAPIConformanceTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml").path

    @Test func schemathesisFindsNothingTheDocumentDoesNotSay() async throws {
        try await withRedisDatabase { database in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("iap-api-\(UUID())").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try ReadAPIFixture.keysFile.write(toFile: directory + "/keys", atomically: true, encoding: .utf8)
            try await withClient(try database.configuration()) { client in
                try await ReadAPIFixture.saveCustomer(RedisCustomerStore(client: client))
            }

            let settings = try ReadAPISettings(environment: [
                "IAP_API_HOST": "127.0.0.1", "IAP_API_PORT": "0", "IAP_OPS_HOST": "127.0.0.1", "IAP_OPS_PORT": "0",
                "IAP_API_KEYS_FILE": directory + "/keys", "REDIS_URL": database.url,
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
                    "run", Self.document, "--url", "http://127.0.0.1:\(port)", "--checks", "all",
                    "--header", "Authorization: Bearer \(ReadAPIFixture.supportKey)", "--max-examples", "25",
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
