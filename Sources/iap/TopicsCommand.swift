import ArgumentParser
import Hosting
import Kafka
import Topology

/// `iap topics`: topic administration against a real Kafka cluster.
struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "Manage the pipeline's Kafka topics.",
        subcommands: [TopicsCreateCommand.self]
    )
}

/// `iap topics create`: creates every topic of the pipeline file, dead-letter topics included.
struct TopicsCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create the pipeline file's topics (existing ones are left as they are).",
        discussion:
            "The embedded dev broker creates its topics itself: the mock cluster does not implement CreateTopics."
    )

    @Option(help: "Kafka bootstrap servers (default: KAFKA_BROKERS).") var brokers: String?
    @Option(help: "Pipeline file (default: IAP_PIPELINE).") var pipeline: String?
    @Option(help: "Override the replication factor (e.g. 1 on a single-broker cluster).") var replicationFactor: Int?
    @Flag(help: "Print what would be created without contacting Kafka.") var dryRun = false

    func run() async throws {
        let settings = try await CLISettings.load()
        let file = try PipelineFile.load(path: try settings.pipelinePath(pipeline))
        let specifications = file.allTopics.map { topic in
            var config = ["cleanup.policy": topic.cleanupPolicy.rawValue]
            if let retention = topic.retention {
                config["retention.ms"] = String(retention.duration.components.seconds * 1000)
            }
            return TopicSpecification(
                name: topic.name, partitions: Int32(topic.partitions),
                replicationFactor: Int32(replicationFactor ?? topic.replicationFactor),
                config: config
            )
        }
        for topic in specifications {
            let config = topic.config.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            print("\(topic.name) partitions=\(topic.partitions) replicationFactor=\(topic.replicationFactor) \(config)")
        }
        guard !dryRun else { return }
        let admin = try settings.cluster(brokers: brokers).admin(
            clientId: "iap-topics", logger: CLILogging.logger("iap.topics"))
        try await admin.createTopics(specifications)
        print("created or already present: \(specifications.count) topics")
    }
}
