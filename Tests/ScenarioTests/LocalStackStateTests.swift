import Foundation
import LocalStack
import PipelineHarness
import Testing

extension ScenarioTests {
    /// The temp directory a stack makes (logs, keys, the dev pipeline) goes away with it, unless
    /// the caller keeps it after a failure; a directory the caller chose always stays.
    @Suite(.timeLimit(.minutes(2))) struct LocalStackStateTests {
        static func start(_ configure: (inout LocalStackConfiguration) -> Void = { _ in }) async throws -> (
            LocalStack, String
        ) {
            var configuration = LocalStackConfiguration()
            configuration.pipelinePath = PipelineHarness.repositoryRoot + "/pipelines/iap.yaml"
            configuration.workers = []
            configuration.gateway = false
            configure(&configuration)
            let stack = try await LocalStack.start(configuration, logger: PipelineHarness.logger)
            return (stack, (stack.endpoints.logs as NSString).deletingLastPathComponent)
        }

        @Test func stopRemovesTheTempDirectoryItMadeUnlessKept() async throws {
            let (stack, directory) = try await Self.start()
            #expect(FileManager.default.fileExists(atPath: directory + "/pipeline.yaml"))
            await stack.stop()
            #expect(!FileManager.default.fileExists(atPath: directory))

            let (kept, keptDirectory) = try await Self.start()
            await kept.stop(keepingState: true)
            #expect(FileManager.default.fileExists(atPath: keptDirectory + "/logs"))
            try FileManager.default.removeItem(atPath: keptDirectory)
        }

        @Test func aConfiguredStateDirectoryStays() async throws {
            let chosen = FileManager.default.temporaryDirectory.appendingPathComponent("iap-state-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: chosen) }
            let (stack, directory) = try await Self.start { $0.stateDirectory = chosen }
            #expect(directory == chosen)
            await stack.stop()
            #expect(FileManager.default.fileExists(atPath: chosen + "/pipeline.yaml"))
        }

        /// An in-process member reads its settings as its executable would, logs to the file its
        /// process would, and is stopped and started again by name.
        @Test func anInProcessMemberLogsToItsFileAndRestarts() async throws {
            try await PipelineHarness.withStack(.inProcess) { configuration in
                configuration.workers = ["iap-intake"]
                configuration.gateway = false
            } _: { stack in
                #expect(stack.isRunning("iap-intake"))
                #expect(stack.process("iap-intake") == nil)
                let log = stack.endpoints.logs + "/iap-intake.log"
                let written = try String(contentsOfFile: log, encoding: .utf8)
                #expect(written.contains(#""label":"iap-intake""#), "\(written.prefix(400))")

                await stack.kill("iap-intake")
                #expect(!stack.isRunning("iap-intake"))
                #expect(stack.exited == ["iap-intake"])
                try await stack.restart("iap-intake")
                #expect(stack.isRunning("iap-intake"))
                #expect(stack.exited.isEmpty)
            }
        }

        @Test func anInProcessMemberRefusesASettingNoExecutableReads() async throws {
            let refusal = await #expect(throws: (any Error).self) {
                try await PipelineHarness.withStack(.inProcess) { configuration in
                    configuration.workers = ["iap-intake"]
                    configuration.gateway = false
                    configuration.workerEnvironment["IAP_NO_SUCH_SETTING"] = "1"
                } _: { _ in
                }
            }
            #expect(refusal.map { "\($0)" }?.contains("IAP_NO_SUCH_SETTING") == true, "\(String(describing: refusal))")
        }
    }
}
