import Catalog
public import Foundation
public import Hosting
public import Kafka
public import Redis
public import Settings
import Topology

/// Process-level settings of a worker: the host's (``HostSettings``), the cluster's
/// (``ClusterSettings``), Redis (``RedisSettings``) and the worker's own keys below. The stage
/// keys are read by the stage (`StageSettings` in WorkerCommon). Flags override the pipeline path.
public struct WorkerSettings: Sendable {
    public static let lagInterval = WorkerKeys.lagInterval
    public static let generationCheckInterval = WorkerKeys.generationCheckInterval

    public static let section = WorkerKeys.section

    /// The brokers and the `IAP_KAFKA_*` properties every Kafka client of the worker is made from.
    public var kafka: KafkaCluster
    public var redisURL: String
    /// Blocking hiredis connections, each on its own thread; concurrent commands are pipelined
    /// on them (D14), so a few carry every record in flight.
    public var redisPoolSize: Int
    public var redisConnectTimeout: Duration
    public var redisCommandTimeout: Duration
    /// `REDIS_TLS_*` (used by `rediss://` only) and `REDIS_RECONNECT_*` (D25).
    public var redisTLS: RedisConfiguration.TLS
    public var redisReconnect: RedisConfiguration.Reconnect
    public var pipelinePath: String
    public var opsHost: String
    public var opsPort: Int
    public var shutdownGracePeriod: Duration
    public var lagInterval: Duration
    /// How soon a worker notices that Redis lost its stage's state and stops to rebuild it.
    public var generationCheckInterval: Duration
    /// How often `/readyz` re-checks Kafka and Redis. Not a setting (5 s suits every deployment's
    /// probe period); tests lengthen it to tell a wake-up on SIGTERM from a sleep that ended.
    public var readinessInterval: Duration = .seconds(5)
    public var identity: ReplicaIdentity

    public init(stage: String, reader: SettingsReader) throws(SettingsError) {
        let host = try HostSettings(process: stage, reader: reader)
        let redis = try RedisSettings(reader: reader)
        kafka = KafkaCluster(
            bootstrapServers: try reader.value(ClusterSettings.kafkaBrokers),
            properties: ClusterSettings.kafkaProperties(reader))
        redisURL = redis.url
        redisPoolSize = redis.poolSize
        redisConnectTimeout = redis.connectTimeout
        redisCommandTimeout = redis.commandTimeout
        redisTLS = redis.tls
        redisReconnect = redis.reconnect
        pipelinePath = try reader.value(ClusterSettings.pipeline)
        opsHost = host.opsHost
        opsPort = host.opsPort
        shutdownGracePeriod = host.shutdownGracePeriod
        lagInterval = try reader.value(Self.lagInterval)
        generationCheckInterval = try reader.value(Self.generationCheckInterval)
        identity = host.identity
    }

    /// The environment alone (tests and embedded stacks).
    public init(stage: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(SettingsError)
    {
        try self.init(stage: stage, reader: SettingsReader(environment: environment))
    }
}
