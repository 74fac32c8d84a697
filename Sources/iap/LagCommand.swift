import ArgumentParser
import Foundation
import Hosting
import Kafka
import Logging
import Pipeline
import Settings
import Topology

/// `iap lag`: consumer-group lag per partition, as dashboards and autoscalers see it; with
/// `--serve`, the one exporter of that lag to Prometheus (decision D26).
struct LagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lag",
        abstract: "Show consumer-group lag per (group, topic, partition), or export it (--serve).",
        discussion: """
            Lag = high watermark − committed offset. A partition the group never committed on counts what the group \
            will read when it starts: high − low watermark (auto.offset.reset=earliest); COMMITTED shows "-".

            With neither --group nor --pipeline: every group on the cluster, on every partition of the topics it \
            committed on (like kafka-consumer-groups --all-groups --describe). A cluster that cannot list its groups \
            (the embedded broker of `iap-dev dev up`, a principal without Describe on the cluster) gets the groups of the \
            pipeline file (IAP_PIPELINE) instead, with a note on stderr saying so.

            --serve: export kafka_exporter's series (kafka_consumergroup_lag, …) for every group of the pipeline file \
            (--pipeline or IAP_PIPELINE) plus any --group, on the ops port (IAP_OPS_PORT: /metrics, /healthz, \
            /readyz), refreshed every IAP_LAG_EXPORT_INTERVAL_SECONDS, until SIGTERM. Reads the settings layer \
            (environment, IAP_CONFIG_FILE); see docs/operations.md.
            """
    )

    @Option(name: .long, help: "Kafka bootstrap servers (default: KAFKA_BROKERS).")
    var brokers: String?

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

    @Flag(name: .long, help: "Export the pipeline's lag on the ops port until SIGTERM (the lag exporter).")
    var serve = false

    func run() async throws {
        let settings = try await CLISettings.load()
        if serve { return try await runExporter(settings.reader) }
        var targets = try resolveTargets(pipelinePath: pipeline)
        let admin = try settings.cluster(brokers: brokers).admin(
            clientId: "iap-lag", logger: CLILogging.logger("iap.lag"))
        repeat {
            if targets.isEmpty {
                do {
                    let cluster = try await ClusterLag.survey(admin)
                    print(json ? LagCommand.jsonLines(cluster.rows) : LagCommand.table(cluster))
                } catch {
                    targets = try pipelineGroups(settings, because: error)
                }
            }
            if !targets.isEmpty {
                var rows: [ConsumerLag] = []
                for target in targets {
                    rows += try await admin.consumerLag(group: target.group, topics: target.topics)
                }
                print(
                    json
                        ? LagCommand.jsonLines(rows)
                        : LagCommand.table(ClusterLag(rows: rows, groupsWithoutOffsets: [])))
            }
            if watch { try await Task.sleep(for: .seconds(interval)) }
        } while watch
    }

    private func runExporter(_ reader: SettingsReader) async throws {
        let host = try HostSettings(process: "iap-lag-exporter", reader: reader)
        LoggingBootstrap.bootstrap(format: host.logFormat, level: host.logLevel)
        var settings = try LagExporterSettings(reader: reader)
        if let brokers { settings.kafka.bootstrapServers = brokers }
        let targets = try resolveTargets(pipelinePath: pipeline ?? settings.pipelinePath)
        guard !targets.isEmpty else { throw ValidationError("the pipeline file names no consumer group") }
        try await LagExporterProcess(settings: settings, targets: targets, logger: Logger(label: "iap.lag-exporter"))
            .run()
    }

    /// The pipeline file's groups, for a cluster that cannot list its own: said on stderr, so
    /// nobody takes the table for the whole cluster and `--json` output stays clean.
    private func pipelineGroups(_ settings: CLISettings, because listing: any Error) throws -> [LagTarget] {
        let path = try settings.pipelinePath(nil)
        let targets: [LagTarget]
        do {
            targets = LagTarget.targets(of: try PipelineFile.load(path: path))
        } catch {
            throw ValidationError(
                "the cluster's consumer groups cannot be listed (\(listing)), and the pipeline file \(path) "
                    + "cannot be read instead: \(error)")
        }
        FileHandle.standardError.write(
            Data(
                ("iap lag: the cluster's consumer groups cannot be listed (\(listing)); showing the groups of "
                    + "\(path) instead (--group GROUP=TOPIC adds others)\n").utf8))
        return targets
    }

    private func resolveTargets(pipelinePath: String?) throws -> [LagTarget] {
        var targets: [LagTarget] = []
        if let pipelinePath {
            targets += LagTarget.targets(of: try PipelineFile.load(path: pipelinePath))
        }
        for spec in group {
            guard let target = LagTarget(spec: spec) else {
                throw ValidationError("--group takes GROUP=TOPIC[,TOPIC…], got \(spec)")
            }
            targets.append(target)
        }
        return targets
    }

    static func jsonLines(_ rows: [ConsumerLag]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return rows.compactMap { row in
            struct Line: Encodable {
                var consumergroup: String, topic: String, partition: Int32, currentOffset: Int64?, highWatermark: Int64,
                    lowWatermark: Int64, lag: Int64
            }
            let line = Line(
                consumergroup: row.group, topic: row.topic, partition: row.partition,
                currentOffset: row.committedOffset, highWatermark: row.highWatermark, lowWatermark: row.lowWatermark,
                lag: row.lag
            )
            return (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) }
        }.joined(separator: "\n")
    }

    static func table(_ lag: ClusterLag) -> String {
        var lines = ["GROUP                TOPIC                     PARTITION  COMMITTED  HIGH-WATER  LAG"]
        for row in lag.rows {
            lines.append(
                row.group.padding(toLength: 20, withPad: " ", startingAt: 0) + " "
                    + row.topic.padding(toLength: 25, withPad: " ", startingAt: 0) + " "
                    + String(row.partition).leftPadded(9) + "  "
                    + (row.committedOffset.map(String.init) ?? "-").leftPadded(9) + "  "
                    + String(row.highWatermark).leftPadded(10) + "  " + String(row.lag)
            )
        }
        for listing in lag.groupsWithoutOffsets {
            lines.append(
                listing.group.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + " (no committed offsets; state \(listing.state))")
        }
        lines.append("total lag: \(lag.rows.reduce(Int64(0)) { $0 + $1.lag })")
        return lines.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
