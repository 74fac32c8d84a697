public import Logging

/// How a process reaches its Kafka cluster: the bootstrap servers and the librdkafka properties
/// every one of its clients shares (`security.protocol`, the SASL mechanism and credentials, TLS
/// files, timeouts).
///
/// Producers, consumers and admin clients of the workers, the gateway, the lag exporter and the
/// `iap` commands are all made from one value, so none of them can be left without the cluster's
/// authentication: a readiness probe that connects without SASL never becomes ready on a managed
/// cluster (decision D38).
public struct KafkaCluster: Sendable, Equatable {
    /// `bootstrap.servers`: comma-separated `host:port` list.
    public var bootstrapServers: String
    /// librdkafka properties applied to every client, over the client's own defaults.
    public var properties: [String: String]

    public init(bootstrapServers: String, properties: [String: String] = [:]) {
        self.bootstrapServers = bootstrapServers
        self.properties = properties
    }

    /// A producer with the shared properties, less those librdkafka knows only on a consumer.
    public func producer(clientId: String) -> KafkaProducerConfiguration {
        var configuration = KafkaProducerConfiguration(bootstrapServers: bootstrapServers)
        configuration.clientId = clientId
        configuration.additionalProperties = KafkaProducerConfiguration.producerProperties(properties)
        return configuration
    }

    /// A group consumer with the shared properties (they override the consumer's defaults, so
    /// `IAP_KAFKA_SESSION_TIMEOUT_MS` is the session timeout).
    public func consumer(groupId: String, topics: [String], clientId: String) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: bootstrapServers, groupId: groupId, topics: topics)
        configuration.clientId = clientId
        configuration.additionalProperties = properties
        return configuration
    }

    /// An admin client (metadata, watermarks, group offsets, topic creation).
    public func admin(clientId: String, logger: Logger) throws(KafkaError) -> KafkaAdmin {
        try KafkaAdmin(bootstrapServers: bootstrapServers, clientId: clientId, properties: properties, logger: logger)
    }
}
