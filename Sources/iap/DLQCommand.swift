import ArgumentParser
import Foundation
import Hosting
import Kafka
import Pipeline
import Topology

/// `iap dlq list|replay`: what sits in the dead-letter topics, and sending it back once fixed.
struct DLQCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dlq",
        abstract: "List and replay dead letters (<topic>.dlq).",
        subcommands: [List.self, Replay.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Records held and not yet replayed, per dead-letter topic.",
            discussion: "Pending counts what the iap-dlq-replay group has not committed past."
        )

        @Option(name: .long, help: "Kafka bootstrap servers (default: KAFKA_BROKERS).")
        var brokers: String?

        @Option(
            name: .long, help: "Pipeline file naming the dead-letter topics (default: IAP_PIPELINE).")
        var pipeline: String?

        @Option(name: .long, help: "A dead-letter topic to list instead of the pipeline's; repeatable.")
        var topic: [String] = []

        @Flag(name: .long, help: "Print one JSON object per topic.")
        var json = false

        func run() async throws {
            let settings = try await CLISettings.load()
            let topics: [String]
            if topic.isEmpty {
                let file = try PipelineFile.load(path: try settings.pipelinePath(pipeline))
                var seen = Set<String>()
                topics = file.stages.flatMap(\.consumedTopics).map(PipelineFile.dlqTopic(for:)).filter {
                    seen.insert($0).inserted
                }
            } else {
                topics = topic
            }
            let admin = try settings.cluster(brokers: brokers).admin(
                clientId: "iap-dlq", logger: CLILogging.logger("iap.dlq"))
            let summaries = try await DeadLetterReplay.summarize(topics, admin: admin)
            if json {
                for summary in summaries { try CLIInput.printJSONLine(summary) }
                return
            }
            let width = max(5, summaries.map(\.topic.count).max() ?? 0)
            func row(_ topic: String, _ held: String, _ pending: String) -> String {
                topic.padding(toLength: width, withPad: " ", startingAt: 0)
                    + String(repeating: " ", count: max(1, 8 - held.count)) + held
                    + String(repeating: " ", count: max(1, 9 - pending.count)) + pending
            }
            print(row("topic", "held", "pending"))
            for summary in summaries { print(row(summary.topic, "\(summary.held)", "\(summary.pending)")) }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-publish pending dead letters to the topic they came from.",
            discussion: """
                Each record goes back with its key, value and headers, without the dead-letter headers, so \
                the stage tries it afresh. The iap-dlq-replay group's offsets are committed once Kafka \
                acknowledged the records: a second replay sends only newer dead letters. --dry-run lists \
                what would be sent and changes nothing.
                """
        )

        @Option(name: .long, help: "Kafka bootstrap servers (default: KAFKA_BROKERS).")
        var brokers: String?

        @Option(name: .long, help: "The dead-letter topic, e.g. iap.verify.dlq.")
        var topic: String

        @Option(name: .long, help: "Replay at most this many records.")
        var limit: Int?

        @Flag(name: .customLong("dry-run"), help: "List what would be replayed; publish and commit nothing.")
        var dryRun = false

        @Flag(name: .long, help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let logger = CLILogging.logger("iap.dlq")
            let cluster = try await CLISettings.load().cluster(brokers: brokers)
            let producer = try KafkaProducer(
                configuration: cluster.producer(clientId: "iap-dlq-replay"), logger: logger)
            let report: DeadLetterReplay.Report
            do {
                report = try await DeadLetterReplay.replay(
                    topic: topic, cluster: cluster, producer: producer, limit: limit, dryRun: dryRun,
                    logger: logger
                )
            } catch {
                await producer.close()
                throw error
            }
            await producer.close()
            if json {
                try CLIInput.printJSONLine(report)
                return
            }
            for entry in report.entries {
                print(
                    "\(topic)[\(entry.partition)]@\(entry.offset) → \(entry.sourceTopic) key=\(entry.key ?? "-") attempts=\(entry.attempts ?? "?") error=\(entry.lastError ?? "-")"
                )
            }
            print(
                dryRun
                    ? "dry run: \(report.entries.count) records would be replayed"
                    : "replayed \(report.replayed) records from \(topic)")
        }
    }
}
