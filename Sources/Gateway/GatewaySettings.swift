import Catalog
public import Foundation
import Hosting
public import Kafka
public import Settings
public import Topology

/// Settings of `iap-gateway`: the host's (``HostSettings``), the cluster's (``ClusterSettings``)
/// and the keys below; the executable's flags override them. A bad value fails start-up with a
/// message naming the key.
public struct GatewaySettings: Sendable {
    public static let listenHost = GatewayKeys.listenHost
    public static let listenPort = GatewayKeys.listenPort
    public static let topicOverride = GatewayKeys.topicOverride
    public static let writeTimeout = GatewayKeys.writeTimeout
    public static let maxBodyBytes = GatewayKeys.maxBodyBytes
    public static let tlsCertificate = GatewayKeys.tlsCertificate
    public static let tlsKey = GatewayKeys.tlsKey

    public static let section = GatewayKeys.section

    /// The brokers (`KAFKA_BROKERS`, or `--brokers`) and the `IAP_KAFKA_*` properties.
    public var kafka: KafkaCluster
    public var host: String
    public var port: Int
    public var pipelinePath: String
    /// Overrides the pipeline file's topic when set.
    public var topic: String?
    public var opsHost: String
    public var opsPort: Int
    public var writeTimeout: Duration
    public var maxBodyBytes: Int
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    public var shutdownGracePeriod: Duration
    public var clientId: String

    public init(reader: SettingsReader) throws(SettingsError) {
        let process = try HostSettings(process: "iap-gateway", reader: reader)
        kafka = KafkaCluster(
            bootstrapServers: try reader.value(ClusterSettings.kafkaBrokers),
            properties: ClusterSettings.kafkaProperties(reader))
        host = try reader.value(Self.listenHost)
        port = try reader.value(Self.listenPort)
        pipelinePath = try reader.value(ClusterSettings.pipeline)
        topic = try reader.optional(Self.topicOverride)
        opsHost = process.opsHost
        opsPort = process.opsPort
        writeTimeout = try reader.value(Self.writeTimeout)
        maxBodyBytes = try reader.value(Self.maxBodyBytes)
        tlsCertificatePath = try reader.optional(Self.tlsCertificate)
        tlsKeyPath = try reader.optional(Self.tlsKey)
        shutdownGracePeriod = process.shutdownGracePeriod
        clientId = process.identity.clientId
    }

    /// The environment alone (tests and embedded stacks).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SettingsError) {
        try self.init(reader: SettingsReader(environment: environment))
    }

    /// Checks combinations the individual keys cannot: TLS needs both files.
    public func validate() throws(SettingsError) {
        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            throw SettingsError(
                .contradiction, key: Self.tlsCertificate.name,
                "TLS needs both IAP_GATEWAY_TLS_CERTIFICATE and IAP_GATEWAY_TLS_KEY (or neither)"
            )
        }
        guard writeTimeout > .zero else {
            throw SettingsError(.invalidValue, key: Self.writeTimeout.name, "the write timeout must be positive")
        }
    }

    /// The topic notifications are written to: ``topic`` when set, else the one the pipeline
    /// file names for them, which it must name (a typo fails start-up, not every request).
    public func notificationsTopic() throws -> String {
        if let topic { return topic }
        return try Self.notificationsTopic(in: PipelineFile.load(path: pipelinePath))
    }

    /// The topic `file` names for notifications: intake's `notifications` input, the topic
    /// intake reads them from (``TopicRole/notifications``).
    public static func notificationsTopic(in file: PipelineFile) throws(SettingsError) -> String {
        do {
            return try file.topic(.notifications)
        } catch {
            throw SettingsError(
                .contradiction, key: ClusterSettings.pipeline.name,
                "the pipeline file names no notifications topic (\(error)); set \(topicOverride.name) or --topic")
        }
    }
}
