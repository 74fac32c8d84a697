import Catalog
public import Foundation
import Hosting
public import Kafka
public import Settings
import Topology

/// What `iap lag --serve` reads: the host's keys (``HostSettings``: ops port, logging, grace),
/// the cluster's (``ClusterSettings``: brokers, pipeline file, `IAP_KAFKA_*`) and its own below.
public struct LagExporterSettings: Sendable {
    public static let interval = LagExporterKeys.interval
    public static let queryTimeout = LagExporterKeys.queryTimeout

    public static let section = LagExporterKeys.section

    /// The brokers (`KAFKA_BROKERS`, or `--brokers`) and the `IAP_KAFKA_*` properties.
    public var kafka: KafkaCluster
    public var pipelinePath: String
    public var opsHost: String
    public var opsPort: Int
    public var shutdownGracePeriod: Duration
    public var clientId: String
    public var interval: Duration
    public var queryTimeout: Duration

    public init(reader: SettingsReader) throws(SettingsError) {
        let host = try HostSettings(process: "iap-lag-exporter", reader: reader)
        kafka = KafkaCluster(
            bootstrapServers: try reader.value(ClusterSettings.kafkaBrokers),
            properties: ClusterSettings.kafkaProperties(reader))
        pipelinePath = try reader.value(ClusterSettings.pipeline)
        opsHost = host.opsHost
        opsPort = host.opsPort
        shutdownGracePeriod = host.shutdownGracePeriod
        clientId = host.identity.clientId
        interval = try reader.value(Self.interval)
        queryTimeout = try reader.value(Self.queryTimeout)
    }

    /// The environment alone (tests and embedded stacks).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SettingsError) {
        try self.init(reader: SettingsReader(environment: environment))
    }
}
