import Foundation
import LocalStack
import Logging
import PipelineHarness
import Redis
import Settings
import SupportTools
import Testing
import WorkerCommon

/// A local stack for the support tools, with the settings an `iap support` command run against
/// it would read.
enum SupportStack {
    static let logger = PipelineHarness.logger

    /// - Parameters:
    ///   - workers: workers to run, in this process (none: broker, Redis and simulator only).
    ///   - gateway: whether `iap-gateway` runs and the simulator's notifications go to it.
    ///   - configure: anything else the test changes.
    static func with<T: Sendable>(
        workers: [String] = LocalStackConfiguration.allWorkers, gateway: Bool = true,
        configure: (inout LocalStackConfiguration) -> Void = { _ in },
        _ body: (LocalStack, SupportSettings) async throws -> T
    ) async throws -> T {
        try await PipelineHarness.withStack(.inProcess) { configuration in
            configuration.workers = workers
            configuration.gateway = gateway
            configure(&configuration)
        } _: { stack in
            try await body(stack, try SupportSettings(reader: SettingsReader(environment: stack.baseEnvironment)))
        }
    }

    /// Grant's entitlement states in the stack's Redis, for the length of `body`.
    static func withGrants<T: Sendable>(
        _ settings: SupportSettings, _ body: (RedisEntitlementStateStore) async throws -> T
    ) async throws -> T {
        let redis = try settings.redisClient(logger: logger)
        do {
            let result = try await body(RedisEntitlementStateStore(client: redis))
            await redis.shutdown()
            return result
        } catch {
            await redis.shutdown()
            throw error
        }
    }

    /// The `--json` output of `report`, parsed back.
    static func json(_ report: some Encodable) throws -> [String: Any] {
        let text = try SupportJSON.encode(report)
        return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}

/// The support suites each start a stack of their own (own broker, Redis, simulator, ports),
/// so they run side by side; two of them start every worker.
@Suite(.timeLimit(.minutes(10))) struct SupportToolsTests {}
