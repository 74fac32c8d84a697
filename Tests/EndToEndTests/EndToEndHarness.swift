import Foundation
import LocalStack
import Logging
import Testing

/// Starts the embedded stack with the worker executables of this build (next to the test
/// bundle) and stops it after `body`, whatever happens.
enum EndToEnd {
    static let logger: Logger = {
        var logger = Logger(label: "test.e2e")
        logger.logLevel = .warning
        return logger
    }()

    static func withStack<T: Sendable>(
        _ configure: (inout LocalStackConfiguration) -> Void = { _ in }, _ body: (LocalStack) async throws -> T
    ) async throws -> T {
        var configuration = LocalStackConfiguration()
        configuration.pipelinePath = repositoryRoot + "/pipelines/iap.yaml"
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

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}

/// The end-to-end suites each start a whole stack (broker, Redis, simulator and five
/// processes); nested here, they run one after the other instead of competing for two cores.
@Suite(.serialized, .timeLimit(.minutes(10))) struct EndToEndTests {}
