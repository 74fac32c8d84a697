/// What `iap-dev soak` does: how many purchases, and which faults it injects while they flow.
public struct SoakConfiguration: Sendable {
    public var purchases = 2_000
    /// Purchases published per second.
    public var rate = 200
    /// SIGKILL a random worker this often and restart it a second later; nil for none.
    public var killWorkersEvery: Duration?
    /// Kill `redis-server` (it runs with an append-only file) and start it again, mid-flight.
    public var redisRestart = false
    /// `FLUSHALL` mid-flight: Redis forgets everything, as after a failover to an asynchronously
    /// replicated replica.
    public var redisLoss = false
    /// Injected produce, commit and fetch errors, and the broker down for `brokerOutage`.
    public var brokerFaults = false
    /// How long the broker is down with `brokerFaults`; nil injects errors only. (A mock broker
    /// brought back up aborts the process if another socket took its port meanwhile, D13: the
    /// short soak in `make test` leaves the outage out.)
    public var brokerOutage: Duration? = .seconds(3)
    /// Share of Apple requests answered with a fault (5xx, 429 with Retry-After, 4040002,
    /// is-retryable 211xx, timeouts, HTML 200s); 0 for none.
    public var appleFaultRate = 0.0
    /// How long Apple's faults last from the first publish, then Apple is healthy again (an
    /// outage); nil for the whole run.
    public var appleFaultsFor: Duration?
    /// Bare transaction ids published at once before the steady stream (one Apple call each):
    /// a backlog, as after an outage, that must drain at the Apple budget
    /// (`LocalStackConfiguration/appleRateLimit`) with nothing dead-lettered.
    public var backlog = 0
    /// Bad records published per good purchase (fuzzed events, malformed gateway bodies).
    public var badInputRate = 0.0
    /// How long the pipeline may take to settle after the last publish.
    public var drainTimeout: Duration = .seconds(300)
    /// Seed of the fault and bad-input schedule, so a failing run can be repeated.
    public var seed: UInt64 = 1

    public init() {}

    /// Every fault on, at the rates `make soak` uses.
    public static func everyFault(purchases: Int) -> SoakConfiguration {
        var configuration = SoakConfiguration()
        configuration.purchases = purchases
        configuration.killWorkersEvery = .seconds(8)
        configuration.redisRestart = true
        configuration.redisLoss = true
        configuration.brokerFaults = true
        configuration.appleFaultRate = 0.1
        configuration.badInputRate = 0.05
        return configuration
    }

}
