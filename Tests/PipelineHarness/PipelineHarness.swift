public import Foundation
public import LocalStack
public import Logging

/// The pipeline test harness: the embedded stack on the repository's pipeline file, stopped after
/// the body whatever happens (its directory kept when the body failed, so the logs stay).
///
/// The scenario tests (`ScenarioTests`, in `make test`) run it with ``MemberMode/inProcess``
/// members; the end-to-end tests (`EndToEndTests`, `make e2e`) with ``MemberMode/processes``,
/// where the process is what they test: kill -9, SIGTERM drains, exit codes, the executables.
public enum PipelineHarness {
    public static let logger: Logger = {
        var logger = Logger(label: "test.pipeline")
        logger.logLevel = .warning
        return logger
    }()

    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    public static func withStack<T: Sendable>(
        _ members: MemberMode, _ configure: (inout LocalStackConfiguration) -> Void = { _ in },
        _ body: (LocalStack) async throws -> T
    ) async throws -> T {
        var configuration = LocalStackConfiguration()
        configuration.pipelinePath = repositoryRoot + "/pipelines/iap.yaml"
        configuration.members = members
        configure(&configuration)
        let stack = try await LocalStack.start(configuration, logger: logger)
        do {
            let result = try await body(stack)
            await stack.stop()
            return result
        } catch {
            await stack.stop(keepingState: true)
            throw error
        }
    }
}
