import ArgumentParser
import Foundation
import Kafka
import Pipeline
import Topology

/// `iap lag`: consumer-group lag per partition, as dashboards and autoscalers see it.
struct LagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lag",
        abstract: "Show consumer-group lag per (group, topic, partition).",
        discussion:
            "Lag = high watermark − committed offset; -1 when the group never committed (kafka_exporter's convention)."
    )

    @Option(name: .long, help: "Kafka bootstrap servers (env KAFKA_BROKERS).")
    var brokers: String = ProcessInfo.processInfo.environment["KAFKA_BROKERS"] ?? "127.0.0.1:9092"

    @Option(name: .long, help: "Consumer group and its topics as GROUP=TOPIC[,TOPIC…]; repeatable.")
    var group: [String] = []

    @Option(name: .long, help: "Pipeline file whose stages name the groups and their input topics.")
    var pipeline: String?

    @Flag(name: .long, help: "Print one JSON object per partition.")
    var json = false

    @Flag(name: .long, help: "Refresh every --interval seconds until interrupted.")
    var watch = false

    @Option(name: .long, help: "Seconds between refreshes with --watch.")
    var interval: Double = 2

    func run() async throws {
        let targets = try resolveTargets()
        guard !targets.isEmpty else { throw ValidationError("name at least one --group GROUP=TOPIC or a --pipeline") }
        let admin = try KafkaAdmin(bootstrapServers: brokers, logger: CLILogging.logger("iap.lag"))
        repeat {
            var rows: [ConsumerLag] = []
            for (group, topics) in targets {
                rows += try await admin.consumerLag(group: group, topics: topics)
            }
            print(json ? LagCommand.jsonLines(rows) : LagCommand.table(rows))
            if watch { try await Task.sleep(for: .seconds(interval)) }
        } while watch
    }

    private func resolveTargets() throws -> [(String, [String])] {
        var targets: [(String, [String])] = try group.map { spec in
            let parts = spec.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("--group takes GROUP=TOPIC[,TOPIC…], got \(spec)") }
            return (String(parts[0]), parts[1].split(separator: ",").map(String.init))
        }
        if let pipeline {
            targets += try PipelineFile.load(path: pipeline).stages.map { ($0.consumerGroup, $0.inputs) }
        }
        return targets
    }

    static func jsonLines(_ rows: [ConsumerLag]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return rows.compactMap { row in
            struct Line: Encodable {
                var consumergroup: String, topic: String, partition: Int32, currentOffset: Int64?, highWatermark: Int64,
                    lag: Int64
            }
            let line = Line(
                consumergroup: row.group, topic: row.topic, partition: row.partition,
                currentOffset: row.committedOffset,
                highWatermark: row.highWatermark, lag: row.lag
            )
            return (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) }
        }.joined(separator: "\n")
    }

    static func table(_ rows: [ConsumerLag]) -> String {
        var lines = ["GROUP                TOPIC                     PARTITION  COMMITTED  HIGH-WATER  LAG"]
        for row in rows {
            lines.append(
                row.group.padding(toLength: 20, withPad: " ", startingAt: 0) + " "
                    + row.topic.padding(toLength: 25, withPad: " ", startingAt: 0) + " "
                    + String(row.partition).leftPadded(9) + "  "
                    + (row.committedOffset.map(String.init) ?? "-").leftPadded(9) + "  "
                    + String(row.highWatermark).leftPadded(10) + "  " + String(row.lag)
            )
        }
        let total = rows.filter { $0.lag > 0 }.reduce(Int64(0)) { $0 + $1.lag }
        lines.append("total lag: \(total)")
        return lines.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
