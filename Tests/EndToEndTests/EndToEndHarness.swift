import Foundation
import LocalStack
import Logging
import PipelineHarness
import Testing

/// The pipeline harness with the worker executables of this build (next to the test bundle)
/// as processes: the end-to-end tests are about what only processes show.
enum EndToEnd {
    static let logger = PipelineHarness.logger
    static let repositoryRoot = PipelineHarness.repositoryRoot

    static func withStack<T: Sendable>(
        _ configure: (inout LocalStackConfiguration) -> Void = { _ in }, _ body: (LocalStack) async throws -> T
    ) async throws -> T {
        try await PipelineHarness.withStack(.processes, configure, body)
    }
}

/// The end-to-end suites each start a whole stack (broker, Redis, simulator and five
/// processes); nested here, they run one after the other instead of competing for two cores.
@Suite(.serialized, .timeLimit(.minutes(10))) struct EndToEndTests {}
