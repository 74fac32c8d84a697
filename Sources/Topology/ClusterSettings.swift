import Catalog
import Foundation
public import Settings

/// Where the Kafka cluster and the pipeline file are, and the librdkafka properties every client
/// needs to reach it: read by the workers, the gateway, the lag exporter and every `iap` command
/// alike, each making its `KafkaCluster` from `kafkaBrokers` and `kafkaProperties` (decision D38).
public enum ClusterSettings {
    public static let kafkaBrokers = ClusterKeys.kafkaBrokers
    public static let pipeline = ClusterKeys.pipeline
    /// `IAP_KAFKA_SESSION_TIMEOUT_MS=10000` is librdkafka's `session.timeout.ms`.
    public static let kafkaPropertyPrefix = ClusterKeys.kafkaPropertyPrefix

    public static let section = ClusterKeys.section
    public static let kafkaPropertyFamily = ClusterKeys.kafkaPropertyFamily

    /// Whether a librdkafka property carries a secret (`sasl.password`, `ssl.key.password`,
    /// `ssl.key.pem`, an OAuth client secret), so `iap config check` shows `***` for it.
    public static func isSecretKafkaProperty(_ property: String) -> Bool {
        property.contains("password") || property.contains("secret") || property == "ssl.key.pem"
    }

    /// The librdkafka property an `IAP_KAFKA_<PROPERTY>` name stands for.
    public static func kafkaProperty(named name: String) -> String {
        name.dropFirst(kafkaPropertyPrefix.count).lowercased().replacingOccurrences(of: "_", with: ".")
    }

    /// The `IAP_KAFKA_<PROPERTY>` name of a librdkafka property, the inverse of
    /// ``kafkaProperty(named:)``: what a process that configures another one writes.
    public static func settingName(forKafkaProperty property: String) -> String {
        kafkaPropertyPrefix + property.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// The `IAP_KAFKA_<PROPERTY>` values as librdkafka properties.
    public static func kafkaProperties(_ reader: SettingsReader) -> [String: String] {
        var properties: [String: String] = [:]
        for (name, value) in reader.values(withPrefix: kafkaPropertyPrefix) {
            properties[kafkaProperty(named: name)] = value
        }
        return properties
    }
}
