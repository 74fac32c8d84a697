import Basics

/// Settings for `KafkaProducer`.
///
/// Defaults favour "never lose, never duplicate on retry": the idempotent producer (which
/// forces `acks=all` and unlimited retries within `message.timeout.ms`) and a short linger so
/// latency stays low while batches still form under load.
public struct KafkaProducerConfiguration: Sendable {
    /// `bootstrap.servers`: comma-separated `host:port` list.
    public var bootstrapServers: String
    /// `client.id`: shows up in broker logs and quotas; make it unique per replica.
    public var clientId: String = "iap"
    /// `enable.idempotence`.
    public var idempotent: Bool = true
    /// `linger.ms`.
    public var linger: Duration = .milliseconds(5)
    /// `message.timeout.ms`: how long librdkafka keeps retrying a record before reporting failure.
    public var messageTimeout: Duration = .seconds(300)
    /// Any other librdkafka property, applied last (escape hatch, as swift-kafka-client offers).
    public var additionalProperties: [String: String] = [:]

    public init(bootstrapServers: String) {
        self.bootstrapServers = bootstrapServers
    }

    var properties: [String: String] {
        var properties = [
            "bootstrap.servers": bootstrapServers,
            "client.id": clientId,
            "enable.idempotence": idempotent ? "true" : "false",
            "linger.ms": String(linger.milliseconds(rounding: .towardZero)),
            "message.timeout.ms": String(messageTimeout.milliseconds(rounding: .towardZero)),
        ]
        properties.merge(additionalProperties) { _, new in new }
        return properties
    }
}

extension KafkaProducerConfiguration {
    /// Properties librdkafka only knows on a consumer, which a set shared by a process's
    /// producer and consumer (`IAP_KAFKA_*`) may carry.
    static let consumerOnlyProperties: Set<String> = [
        "session.timeout.ms", "heartbeat.interval.ms", "auto.offset.reset", "partition.assignment.strategy",
        "max.poll.interval.ms",
        "group.instance.id", "fetch.wait.max.ms",
    ]

    /// `shared` without the consumer-only properties, for a producer's `additionalProperties`.
    public static func producerProperties(_ shared: [String: String]) -> [String: String] {
        shared.filter { !consumerOnlyProperties.contains($0.key) }
    }
}
