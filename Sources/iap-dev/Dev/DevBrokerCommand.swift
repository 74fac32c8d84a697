import ArgumentParser
import Foundation
import Hosting
import Kafka
import LocalServices
import Pipeline
import Topology
import UnixSignals

/// `iap-dev dev broker`: an in-process Kafka broker with the pipeline's topics, until interrupted.
struct DevBrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Start librdkafka's mock cluster (real Kafka protocol on loopback) with the pipeline file's topics.",
        discussion:
            "Prints one JSON line {\"kafka\": BOOTSTRAP, \"topics\": [...]} when ready, then runs until SIGINT or SIGTERM."
    )

    @Option(help: "Pipeline file whose topics to create.") var pipeline = "pipelines/iap.yaml"
    @Option(help: "Number of mock brokers.") var brokers: Int32 = 1
    @Option(help: "Override every topic's partition count (small numbers keep laptops quiet).") var partitions: Int?

    func run() async throws {
        let file = try PipelineFile.load(path: pipeline)
        let cluster = try KafkaMockCluster(brokers: brokers, logger: CLILogging.logger("iap.dev.broker"))
        let topics = file.allTopics
        for topic in topics {
            try await cluster.createTopic(
                topic.name, partitions: Int32(partitions ?? topic.partitions),
                replicationFactor: Int32(topic.replicationFactor))
        }
        let ready: [String: Any] = ["kafka": cluster.bootstrapServers, "topics": topics.map(\.name)]
        // Unbuffered, so a parent reading our pipe sees the ready line at once.
        FileHandle.standardOutput.write(
            try JSONSerialization.data(withJSONObject: ready, options: [.sortedKeys]) + Data("\n".utf8))
        for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) { break }
        withExtendedLifetime(cluster) {}
    }
}
