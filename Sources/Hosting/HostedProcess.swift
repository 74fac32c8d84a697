public import UnixSignals

/// What an executable runs as its whole process (a worker, the gateway, the lag exporter): one
/// `ProcessHost.run` under a ``ProcessHost/Stop``. The two ways to stop it, signals in
/// production and a caller's trigger in tests and embedded stacks, come with the conformance.
public protocol HostedProcess: Sendable {
    /// Runs until `stop`, or until the process's services end on their own, then shuts down.
    func run(until stop: ProcessHost.Stop) async throws
}

extension HostedProcess {
    /// Runs until a signal in `signals` (or the group's own shutdown), then drains and exits.
    public func run(signals: [UnixSignal] = [.sigterm, .sigint]) async throws {
        try await run(until: .signals(signals))
    }

    /// Runs until `shutdown` returns (tests and embedded stacks stop it themselves).
    public func run(until shutdown: @escaping @Sendable () async -> Void) async throws {
        try await run(until: .trigger(shutdown))
    }
}
