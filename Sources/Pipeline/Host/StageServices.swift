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
        let generation = try await cancelWhenGracefulShutdown { try await recovery.prepare(logger: logger) }
        var configuration = ServiceGroupConfiguration(services: try makeServices(generation), logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownGracePeriod
        let group = ServiceGroup(configuration: configuration)
        try await withGracefulShutdownHandler {
            try await group.run()
        } onGracefulShutdown: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}
