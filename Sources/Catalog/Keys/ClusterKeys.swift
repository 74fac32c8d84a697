public import Settings

/// Where the Kafka cluster and the pipeline file are (decision D38). Read by `ClusterSettings`
/// (Topology), which forwards these.
public enum ClusterKeys {
    public static let kafkaBrokers = Setting<String>.text(
        "KAFKA_BROKERS", "Kafka bootstrap servers", default: "127.0.0.1:9092")
    public static let pipeline = Setting<String>.text(
        "IAP_PIPELINE", "The pipeline file (topics and stages)", default: "pipelines/iap.yaml")
    /// `IAP_KAFKA_SESSION_TIMEOUT_MS=10000` is librdkafka's `session.timeout.ms`.
    public static let kafkaPropertyPrefix = "IAP_KAFKA_"

    public static let section = SettingsSection(
        "Kafka", readBy: "workers, gateway, iap", [kafkaBrokers.descriptor, pipeline.descriptor])
    public static let kafkaPropertyFamily = (
        prefix: kafkaPropertyPrefix,
        summary: "Any librdkafka property, dots as underscores (`IAP_KAFKA_SESSION_TIMEOUT_MS` is `session.timeout.ms`)"
    )
}
