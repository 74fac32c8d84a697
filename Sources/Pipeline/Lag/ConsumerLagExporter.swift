public import Hosting
public import Kafka
public import Logging
public import Prometheus
public import ServiceLifecycle

/// The one exporter of consumer-group lag (decision D26): every `interval`, for every group it
/// watches, lag on every partition of the group's topics from committed offsets and
/// watermarks, whether or not any member of the group is running, under kafka_exporter's
/// names and labels so its dashboard (Grafana 7589) and alerts work unchanged.
///
/// Workers do not export these names: every worker exporting them would double-count
/// wherever kafka_exporter is scraped too, and a stage with no running replica would have no
/// series at all. A partition the group never committed on reports what the group will read
/// (high − low watermark, `auto.offset.reset=earliest`), not kafka_exporter's -1.
///
/// `readiness` is ready after a refresh whose Kafka queries all succeeded, not ready (with
/// the error) after one that failed; the series keep their last values meanwhile and
/// `iap_lag_exporter_up` drops to 0.
public struct ConsumerLagExporter: Service {
    private let admin: KafkaAdmin
    private let targets: [LagTarget]
    private let interval: Duration
    private let queryTimeout: Duration
    private let registry: PrometheusCollectorRegistry
    private let readiness: ReadinessFlag
    private let logger: Logger

    public init(
        admin: KafkaAdmin, targets: [LagTarget], interval: Duration, queryTimeout: Duration = .seconds(10),
        registry: PrometheusCollectorRegistry, readiness: ReadinessFlag, logger: Logger
    ) {
        self.admin = admin
        self.targets = targets
        self.interval = interval
        self.queryTimeout = queryTimeout
        self.registry = registry
        self.readiness = readiness
        self.logger = logger
    }

    public func run() async {
        var series = LagSeries(registry: registry)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let snapshot = try await collect()
                series.publish(snapshot)
                readiness.set(.ready)
            } catch {
                series.markDown()
                readiness.set(.notReady(reason: "Kafka query failed: \(error)"))
                logger.warning("lag query failed", metadata: ["error": "\(error)"])
            }
            // Wakes at once on graceful shutdown instead of sleeping through it.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        readiness.set(.notReady(reason: "shutting down"))
    }

    /// One pass over the cluster: partition counts, both watermarks, each group's commits.
    func collect() async throws(KafkaError) -> LagSnapshot {
        let topics = Array(Set(targets.flatMap(\.topics))).sorted()
        let counts = try await admin.partitionCounts(of: topics, timeout: queryTimeout)
        let missing = topics.filter { counts[$0] == nil }
        if !missing.isEmpty {
            logger.warning("topics not on the cluster; no lag for them", metadata: ["topics": "\(missing)"])
        }
        let partitionsOf = Dictionary(
            uniqueKeysWithValues: topics.map { topic in
                (topic, (0..<(counts[topic] ?? 0)).map { TopicPartition(topic, $0) })
            })
        let all = topics.flatMap { partitionsOf[$0] ?? [] }
        let watermarks = try await admin.watermarks(all, timeout: queryTimeout)
        var lags: [ConsumerLag] = []
        for target in targets {
            let partitions = target.topics.flatMap { partitionsOf[$0] ?? [] }
            let committed = try await admin.committedOffsets(
                group: target.group, partitions: partitions, timeout: queryTimeout)
            lags += partitions.map { partition in
                ConsumerLag(
                    group: target.group, topic: partition.topic, partition: partition.partition,
                    committedOffset: committed[partition], highWatermark: watermarks[partition]?.high ?? 0,
                    lowWatermark: watermarks[partition]?.low ?? 0)
            }
        }
        return LagSnapshot(
            lags: lags, partitionCounts: counts.filter { topics.contains($0.key) },
            watermarks: watermarks.mapValues { LagSnapshot.Watermarks(low: $0.low, high: $0.high) })
    }
}

/// What one refresh learned.
struct LagSnapshot: Sendable {
    struct Watermarks: Sendable, Hashable {
        var low: Int64
        var high: Int64
    }

    var lags: [ConsumerLag]
    var partitionCounts: [String: Int32]
    var watermarks: [TopicPartition: Watermarks]
}

/// The exporter's series in the registry: set from each snapshot, and series for partitions,
/// topics or groups that disappeared are unregistered (a scrape never shows a stale partition).
struct LagSeries {
    /// kafka_exporter's names and labels (danielqsj/kafka_exporter, `kafka_exporter.go`).
    enum Name {
        static let lag = "kafka_consumergroup_lag"
        static let lagSum = "kafka_consumergroup_lag_sum"
        static let currentOffset = "kafka_consumergroup_current_offset"
        static let currentOffsetSum = "kafka_consumergroup_current_offset_sum"
        static let partitions = "kafka_topic_partitions"
        static let partitionCurrentOffset = "kafka_topic_partition_current_offset"
        static let partitionOldestOffset = "kafka_topic_partition_oldest_offset"
        static let up = "iap_lag_exporter_up"
    }

    /// The help texts are kafka_exporter's, kept with every other family's in `MetricHelp`.
    static func help(_ name: String) -> String { MetricHelp.catalog[name] ?? "" }

    struct Key: Hashable {
        var name: String
        var labels: [String]
    }

    private let registry: PrometheusCollectorRegistry
    private var gauges: [Key: Gauge] = [:]
    private let up: Gauge

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        up = registry.makeGauge(name: Name.up, labels: [], help: Self.help(Name.up))
    }

    func markDown() {
        up.set(Int64(0))
    }

    mutating func publish(_ snapshot: LagSnapshot) {
        var next: [Key: (labels: [(String, String)], value: Int64)] = [:]
        func put(_ name: String, _ labels: [(String, String)], _ value: Int64) {
            next[Key(name: name, labels: labels.map { "\($0.0)=\($0.1)" })] = (labels, value)
        }
        var lagSums: [[String]: Int64] = [:]
        var offsetSums: [[String]: Int64] = [:]
        for row in snapshot.lags {
            let labels = [("consumergroup", row.group), ("topic", row.topic), ("partition", String(row.partition))]
            put(Name.lag, labels, row.lag)
            put(Name.currentOffset, labels, row.committedOffset ?? -1)
            lagSums[[row.group, row.topic], default: 0] += row.lag
            offsetSums[[row.group, row.topic], default: 0] += row.committedOffset ?? 0
        }
        for (pair, sum) in lagSums {
            put(Name.lagSum, [("consumergroup", pair[0]), ("topic", pair[1])], sum)
            put(Name.currentOffsetSum, [("consumergroup", pair[0]), ("topic", pair[1])], offsetSums[pair] ?? 0)
        }
        for (topic, count) in snapshot.partitionCounts {
            put(Name.partitions, [("topic", topic)], Int64(count))
        }
        for (partition, marks) in snapshot.watermarks {
            let labels = [("topic", partition.topic), ("partition", String(partition.partition))]
            put(Name.partitionCurrentOffset, labels, marks.high)
            put(Name.partitionOldestOffset, labels, marks.low)
        }
        for (key, gauge) in gauges where next[key] == nil {
            registry.unregisterGauge(gauge)
            gauges[key] = nil
        }
        for (key, entry) in next {
            let gauge =
                gauges[key]
                ?? registry.makeGauge(name: key.name, labels: entry.labels, help: Self.help(key.name))
            gauges[key] = gauge
            gauge.set(entry.value)
        }
        up.set(Int64(1))
    }
}
