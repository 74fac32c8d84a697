import Foundation
import LocalStack
import Testing

extension EndToEndTests {
    /// The temp directory a stack makes (logs, keys, the dev pipeline) goes away with it, unless
    /// the caller keeps it after a failure; a directory the caller chose always stays.
    @Suite(.serialized, .timeLimit(.minutes(2))) struct LocalStackStateTests {
        static func start(_ configure: (inout LocalStackConfiguration) -> Void = { _ in }) async throws -> (
            LocalStack, String
        ) {
            var configuration = LocalStackConfiguration()
            configuration.pipelinePath = EndToEnd.repositoryRoot + "/pipelines/iap.yaml"
            configuration.workers = []
            configuration.gateway = false
            configure(&configuration)
            let stack = try await LocalStack.start(configuration, logger: EndToEnd.logger)
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
    }
}
