public import Foundation

/// Process-level settings of a worker, read from the environment (flags override them in the
/// executables). Secrets such as the Redis password travel in `REDIS_URL` and are never logged.
///
/// ## Environment
/// - `KAFKA_BROKERS`: bootstrap servers (default `127.0.0.1:9092`)
/// - `REDIS_URL`: `redis://[:password@]host:port[/db]` (default `redis://127.0.0.1:6379`)
/// - `REDIS_POOL_SIZE`: Redis connections of the worker (default 2; commands are pipelined on them)
/// - `IAP_PIPELINE`: pipeline file (default `pipelines/iap.yaml`)
/// - `IAP_OPS_HOST`, `IAP_OPS_PORT`: the `/metrics`, `/healthz`, `/readyz` listener (default `0.0.0.0:9100`; 0 = any free port)
/// - `IAP_SHUTDOWN_GRACE_SECONDS`: how long SIGTERM may drain before work is cancelled (default 30)
/// - `IAP_LAG_INTERVAL_SECONDS`: how often `kafka_consumergroup_lag` is refreshed (default 10)
/// - `IAP_GENERATION_CHECK_SECONDS`: how often the worker checks that Redis still holds its
///   stage's state (``StateGeneration``; default 2)
/// - `IAP_CLIENT_ID`, `IAP_GROUP_INSTANCE_ID`, `IAP_STATIC_MEMBERSHIP`: see ``ReplicaIdentity``
/// - `IAP_KAFKA_<PROPERTY>`: any librdkafka property, dots as underscores
///   (`IAP_KAFKA_SESSION_TIMEOUT_MS=10000` sets `session.timeout.ms`)
public struct WorkerSettings: Sendable {
    public var kafkaBrokers = "127.0.0.1:9092"
    public var redisURL = "redis://127.0.0.1:6379"
    /// Blocking hiredis connections, each on its own thread; concurrent commands are pipelined
    /// on them (D14), so a few carry every record in flight.
    public var redisPoolSize = 2
    public var pipelinePath = "pipelines/iap.yaml"
    public var opsHost = "0.0.0.0"
    public var opsPort = 9100
    public var shutdownGracePeriod: Duration = .seconds(30)
    public var lagInterval: Duration = .seconds(10)
    /// How soon a worker notices that Redis lost its stage's state and stops to rebuild it.
    public var generationCheckInterval: Duration = .seconds(2)
    public var identity: ReplicaIdentity
    public var kafkaProperties: [String: String] = [:]

    public init(stage: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        identity = ReplicaIdentity.fromEnvironment(stage: stage, environment: environment)
        if let value = environment["KAFKA_BROKERS"] { kafkaBrokers = value }
        if let value = environment["REDIS_URL"] { redisURL = value }
        if let value = environment["REDIS_POOL_SIZE"].flatMap(Int.init), value > 0 { redisPoolSize = value }
        if let value = environment["IAP_PIPELINE"] { pipelinePath = value }
        if let value = environment["IAP_OPS_HOST"] { opsHost = value }
        if let value = environment["IAP_OPS_PORT"].flatMap(Int.init) { opsPort = value }
        if let value = environment["IAP_SHUTDOWN_GRACE_SECONDS"].flatMap(Double.init) { shutdownGracePeriod = .seconds(value) }
        if let value = environment["IAP_LAG_INTERVAL_SECONDS"].flatMap(Double.init) { lagInterval = .seconds(value) }
        if let value = environment["IAP_GENERATION_CHECK_SECONDS"].flatMap(Double.init), value > 0 { generationCheckInterval = .seconds(value) }
        kafkaProperties = Self.kafkaProperties(environment)
    }
}

extension WorkerSettings {
    /// `IAP_KAFKA_<PROPERTY>` variables as librdkafka properties, dots as underscores
    /// (`IAP_KAFKA_SESSION_TIMEOUT_MS=10000` is `session.timeout.ms`).
    public static func kafkaProperties(_ environment: [String: String]) -> [String: String] {
        var properties: [String: String] = [:]
        for (key, value) in environment where key.hasPrefix("IAP_KAFKA_") {
            properties[key.dropFirst("IAP_KAFKA_".count).lowercased().replacingOccurrences(of: "_", with: ".")] = value
        }
        return properties
    }
}
