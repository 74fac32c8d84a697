import Foundation
import LocalStack
import Processes
import TestSupport
import Testing

extension EndToEndTests {
    /// The README's Python backend (`examples/python`, confluent-kafka from PyPI) against
    /// `iap-dev dev up`, as an integrator runs it: an order and a StoreKit 2 purchase in, the
    /// entitlement out, in the shape `docs/schemas/iap.entitlements.schema.json` publishes.
    /// python3 and confluent-kafka are what `make setup` installs: missing, the test fails.
    @Suite(.serialized, .timeLimit(.minutes(8))) struct PythonExampleTests {
        @Test func thePythonBackendReadsTheEntitlementOfItsOrderFromDevUp() async throws {
            let binDirectory =
                ProcessInfo.processInfo.environment["IAP_BIN_DIR"] ?? EndToEnd.repositoryRoot + "/.build/debug"
            let log = FileManager.default.temporaryDirectory.appendingPathComponent(
                "iap-dev-up-\(UUID().uuidString.prefix(8)).log"
            ).path
            defer { try? FileManager.default.removeItem(atPath: log) }
            let devUp = try ChildProcess(
                name: "iap-dev-up", executable: binDirectory + "/iap-dev",
                arguments: ["dev", "up", "--json", "--pipeline", EndToEnd.repositoryRoot + "/pipelines/iap.yaml"],
                output: .file(log))
            do {
                try await Self.run(devUp, log: log)
            } catch {
                Issue.record("iap-dev dev up:\n\(devUp.logTail())")
                await devUp.stop(grace: .seconds(60))
                throw error
            }
            await devUp.stop(grace: .seconds(60))
            #expect(devUp.exitCode == 0, "iap-dev dev up did not stop cleanly:\n\(devUp.logTail())")
        }

        /// The README quotes the example's core lines; they must be the script's, in order.
        @Test func theREADMEQuotesTheExampleAsItIs() throws {
            func lines(_ text: some StringProtocol) -> [String] {
                text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            let readme = try String(contentsOfFile: EndToEnd.repositoryRoot + "/README.md", encoding: .utf8)
            let start = try #require(readme.range(of: "```python\n"))
            let end = try #require(readme[start.upperBound...].range(of: "```"))
            let quoted = lines(readme[start.upperBound..<end.lowerBound])
            let script = lines(
                try String(contentsOfFile: EndToEnd.repositoryRoot + "/examples/python/backend.py", encoding: .utf8))
            #expect(!quoted.isEmpty)
            var remaining = script[...]
            for line in quoted {
                let found = remaining.firstIndex(of: line)
                #expect(found != nil, "README quotes a line backend.py does not have (in this order): \(line)")
                remaining = remaining[((found ?? remaining.startIndex) + 1)...]
            }
        }

        static func run(_ devUp: ChildProcess, log: String) async throws {
            let stack = try await eventually(
                "iap-dev dev up's ready line", timeout: .seconds(240), every: .milliseconds(200)
            ) {
                () throws -> LocalStackEndpoints? in
                guard devUp.isRunning else { throw SpawnError("iap-dev dev up exited with \(devUp.exitCode ?? -1)") }
                let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                return lines.lazy.filter { $0.hasPrefix("{") }
                    .compactMap { try? JSONDecoder().decode(LocalStackEndpoints.self, from: Data($0.utf8)) }.first
            }
            let example = try await ChildProcess.run(
                "python3",
                [
                    EndToEnd.repositoryRoot + "/examples/python/backend.py", "--brokers", stack.kafka,
                    "--simulator", stack.simulator, "--bundle-id", stack.bundleId,
                ], timeout: .seconds(240))
            #expect(example.exitCode == 0, "examples/python/backend.py:\n\(example.output)")
            let printed = try #require(
                example.output.split(separator: "\n").last { $0.hasPrefix("{") }, "no entitlement printed")
            let entitlement = try #require(
                try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
            #expect(entitlement["action"] as? String == "grant")
            #expect(entitlement["matchedBy"] as? String == "appAccountToken")
            #expect((entitlement["orderId"] as? String)?.hasPrefix("python-order-") == true)
            let violations = try await TopicSchemas.violations(of: [Array(printed.utf8)], topic: "iap.entitlements")
            #expect(violations.isEmpty, "\(violations)")
        }
    }
}
