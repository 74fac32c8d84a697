public import Logging
public import ServiceLifecycle
public import UnixSignals

/// The one run loop of every executable (workers, gateway, and tools that host services):
/// one `ServiceGroup`, stopped by signals or by a caller's trigger, then a clean-up that runs
/// whether the group stopped gracefully or failed.
public enum ProcessHost {
    /// What stops the group besides its services ending.
    public enum Stop: Sendable {
        /// SIGTERM and SIGINT by default: a process under a supervisor.
        case signals([UnixSignal] = [.sigterm, .sigint])
        /// Tests and embedded stacks: the group is stopped when `trigger` returns. It is not
        /// waited for when the group ends on its own (a failed service), so a trigger that never
        /// returns cannot hold the process.
        case trigger(@Sendable () async -> Void)
    }

    /// Runs `services` in order (stopping them in reverse), then `cleanUp`; rethrows the
    /// group's failure after cleaning up.
    ///
    /// - Parameter gracePeriod: how long a graceful shutdown may take before the group cancels
    ///   what is still running.
    public static func run(
        _ services: [ServiceGroupConfiguration.ServiceConfiguration], until stop: Stop, gracePeriod: Duration,
        logger: Logger,
        cleanUp: @Sendable () async -> Void = {}
    ) async throws {
        var signals: [UnixSignal] = []
        var trigger: (@Sendable () async -> Void)?
        switch stop {
        case .signals(let list): signals = list
        case .trigger(let closure): trigger = closure
        }
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: signals, logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let group = ServiceGroup(configuration: configuration)
        let triggering = trigger.map { trigger in
            Task {
                await trigger()
                await group.triggerGracefulShutdown()
            }
        }
        defer { triggering?.cancel() }
        var failure: (any Error)?
        do {
            try await group.run()
        } catch {
            failure = error
        }
        await cleanUp()
        if let failure { throw failure }
    }
}
