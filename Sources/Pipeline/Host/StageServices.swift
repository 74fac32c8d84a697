import Logging
import ServiceLifecycle

/// The part of a worker that needs its stage's state in Redis: recovers it (``StateRecovery``),
/// then builds and runs the stage's services as a group of their own, which drains in order
/// when the worker's group shuts down. Nesting keeps the ops server, outside, answering while
/// a rebuild runs, and keeps the consumer from joining its group before the rebuild is done.
struct StageServices: Service {
    let recovery: StateRecovery
    let shutdownGracePeriod: Duration
    let logger: Logger
    let makeServices: @Sendable (_ generation: String) throws -> [ServiceGroupConfiguration.ServiceConfiguration]

    init(
        recovery: StateRecovery, shutdownGracePeriod: Duration, logger: Logger,
        makeServices:
            @escaping @Sendable (_ generation: String) throws -> [ServiceGroupConfiguration.ServiceConfiguration]
    ) {
        self.recovery = recovery
        self.shutdownGracePeriod = shutdownGracePeriod
        self.logger = logger
        self.makeServices = makeServices
    }

    func run() async throws {
        let generation = try await cancelWhenGracefulShutdown { try await recover() }
        var configuration = ServiceGroupConfiguration(services: try makeServices(generation), logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownGracePeriod
        let group = ServiceGroup(configuration: configuration)
        try await withGracefulShutdownHandler {
            try await group.run()
        } onGracefulShutdown: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// The recovery, tried again until Redis and Kafka answer it. A worker that starts while
    /// one of them cannot (Redis loading its append-only file after a restart, a broker outage)
    /// waits, not ready, as a running worker's calls wait, instead of exiting into a restart
    /// loop (the full soak saw a worker restarted during a Redis restart die on `LOADING`).
    /// Every step is idempotent, so running them again from the first is safe.
    private func recover() async throws -> String {
        var backoff = Duration.milliseconds(200)
        while true {
            do {
                return try await recovery.prepare(logger: logger)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                logger.warning(
                    "state recovery failed; trying again", metadata: ["error": "\(error)", "backoff": "\(backoff)"])
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, Self.maximumBackoff)
            }
        }
    }

    private static let maximumBackoff = Duration.seconds(10)
}
