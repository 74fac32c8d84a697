import AppStoreSimulator
import Foundation
import Topology

/// What `iap-dev dev up`, `iap-dev demo`, the end-to-end tests and `iap-dev bench e2e` start.
///
/// The defaults are a laptop's: few partitions, sub-second retry backoffs and a short
/// unmatched window, so scenarios that take hours in production finish in seconds.
public struct LocalStackConfiguration: Sendable {
    /// The six workers, in pipeline order; `workers` picks a subset.
    public static let allWorkers = StageName.allCases.map(\.executable)

    /// Pipeline file the dev topology is derived from.
    public var pipelinePath = "pipelines/iap.yaml"
    /// Partitions of every topic on the embedded broker (the mock keeps ~5 MiB each, D7).
    public var partitions = 4
    /// Brokers of the embedded mock cluster; partition leaders are spread over them.
    public var brokers: Int32 = 1
    /// Worker executables to start; empty starts only broker, Redis and simulator.
    public var workers = LocalStackConfiguration.allWorkers
    /// Child processes (the default) or tasks of this process (scenario tests).
    public var members = MemberMode.processes
    /// Whether to start `iap-gateway` and point the simulator's notifications at it.
    public var gateway = true
    /// Whether to start `iap-api`, the read API, with a development key for the app.
    public var api = true
    /// The product catalog `iap-api` renders customers with; nil (or a path that does not
    /// exist) for none.
    public var catalogPath: String? = "pipelines/catalog.yaml"
    /// Whether to start `iap-reconcile` (decision D32): with no gateway, it is what brings the
    /// simulator's notifications into the pipeline, from its notification history.
    public var reconcile = false
    /// Time between reconcile runs (`IAP_RECONCILE_INTERVAL_SECONDS`).
    public var reconcileInterval: Duration = .seconds(2)
    /// Directory holding the worker executables; `nil` means next to the running executable.
    public var binDirectory: String?
    /// Directory for the dev pipeline file, keys, the root certificate and child logs.
    public var stateDirectory: String?
    /// Bundle id of the simulated app.
    public var bundleId = "com.example.game"
    /// Further apps the stack serves besides ``bundleId`` (the demo's second app, D57): with
    /// any, the workers read them and ``bundleId`` from an `IAP_APPS` file.
    public var otherApps: [String] = []
    /// First retry delay and cap of every stage in the dev pipeline file.
    public var retryInitialBackoff: Duration = .milliseconds(250)
    public var retryMaxBackoff: Duration = .seconds(2)
    /// How long match waits for an order before `iap.unmatched`.
    public var unmatchedWindow: Duration = .seconds(20)
    /// How long match waits for the order a signed token names (decision D11).
    public var orderGrace: Duration = .seconds(8)
    /// Whether `redis-server` keeps an append-only file (fsync on every write), so restarting
    /// it keeps the data, as a production Redis with AOF does.
    public var redisAppendOnly = false
    /// Latency the simulator adds to every Apple call (`--apple-latency`).
    public var appleLatency: Duration = .zero
    /// How long one of the simulator's notification deliveries may take before it counts as
    /// `NO_RESPONSE` (the simulator's default); tests of a silent gateway shorten it.
    public var appleNotificationTimeout: Duration = AppStoreSimulatorConfiguration().notificationTimeout
    /// Shared Apple call rate limit per second (Redis, across verify replicas); 0 turns it off.
    public var appleRateLimit = 40
    /// Replicas per worker (each its own process and consumer-group member).
    public var replicas = 1
    /// Extra environment for every worker (e.g. `IAP_LOG_LEVEL`).
    public var workerEnvironment: [String: String] = [:]
    /// How long a worker may drain on SIGTERM before it is killed.
    public var shutdownGrace: Duration = .seconds(15)

    public init() {}
}
