import Catalog
import Kafka
import Settings
import Topology

/// What the `iap` commands that reach the cluster read: the settings layer the executables read
/// (the environment, then `IAP_CONFIG_FILE`, then defaults; unknown `IAP_` names refused), with a
/// command's `--brokers` or `--pipeline` over `KAFKA_BROKERS` or `IAP_PIPELINE`. So
/// `IAP_KAFKA_SECURITY_PROTOCOL=SASL_SSL` and its credentials reach every client a command makes,
/// as they reach the workers' (decision D38).
struct CLISettings {
    let reader: SettingsReader

    static func load() async throws -> CLISettings {
        let reader = try await SettingsReader.load()
        try SettingsCatalog.pipeline.refuseUnknownNames(in: reader)
        return CLISettings(reader: reader)
    }

    func cluster(brokers: String?) throws -> KafkaCluster {
        KafkaCluster(
            bootstrapServers: try brokers ?? reader.value(ClusterSettings.kafkaBrokers),
            properties: ClusterSettings.kafkaProperties(reader))
    }

    func pipelinePath(_ flag: String?) throws -> String {
        try flag ?? reader.value(ClusterSettings.pipeline)
    }
}
