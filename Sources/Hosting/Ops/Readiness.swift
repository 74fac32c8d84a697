import Synchronization

/// What `/readyz` reports: load balancers and rollouts wait for `.ready`.
public enum Readiness: Sendable, Hashable {
    case ready
    /// Not serving yet (or any more); the reason is returned in the 503 body.
    case notReady(reason: String)
}

/// A settable readiness for workers whose readiness is a single switch (assigned partitions,
/// Redis reachable); pass ``check`` to ``OpsServer``.
public final class ReadinessFlag: Sendable {
    private let state: Mutex<Readiness>

    public init(_ initial: Readiness = .notReady(reason: "starting")) {
        state = Mutex(initial)
    }

    public func set(_ readiness: Readiness) {
        state.withLock { $0 = readiness }
    }

    public var current: Readiness { state.withLock { $0 } }

    /// The flag as the closure ``OpsServer`` polls.
    public var check: @Sendable () async -> Readiness {
        { self.current }
    }
}
