public import CoreMetrics
public import Kafka
public import Logging
import Metrics
public import ServiceLifecycle

/// Publishes `iap_consumer_lag{stage,topic,partition}`: this replica's view of the lag of the
/// partitions it owns, so a replica that falls behind (or holds a stuck partition) shows in
/// its own metrics. Revoked partitions' series are removed.
///
/// Deliberately not kafka_exporter's `kafka_consumergroup_lag` (decision D26): that series
/// comes from the one lag exporter (`iap lag --serve`), which reports every partition whether
/// or not a replica runs; workers exporting it too would double-count it wherever
/// kafka_exporter is scraped, and would fall silent exactly when a stage is dead.
public struct ConsumerLagReporter: Service {
    public static let metricName = "iap_consumer_lag"

    private let admin: KafkaAdmin
    private let consumer: KafkaConsumer
    private let stage: String
    private let group: String
    private let interval: Duration
    private let logger: Logger
    private let metricsFactory: any MetricsFactory

    public init(
        admin: KafkaAdmin, consumer: KafkaConsumer, stage: String, group: String, interval: Duration = .seconds(10),
        logger: Logger, metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.metricsFactory = metricsFactory
        self.admin = admin
        self.consumer = consumer
        self.stage = stage
        self.group = group
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        var reported: Set<TopicPartition> = []
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let owned = consumer.assignment
            do {
                let watermarks = try await admin.watermarks(owned)
                let committed = try await admin.committedOffsets(group: group, partitions: owned)
                for partition in owned {
                    let lag = ConsumerLag(
                        group: group, topic: partition.topic, partition: partition.partition,
                        committedOffset: committed[partition], highWatermark: watermarks[partition]?.high ?? 0,
                        lowWatermark: watermarks[partition]?.low ?? 0)
                    gauge(partition).record(lag.lag)
                }
                for gone in reported.subtracting(owned) {
                    gauge(gone).destroy()
                }
                reported = Set(owned)
            } catch {
                logger.warning("lag query failed", metadata: ["error": "\(error)"])
            }
            // Wakes at once on graceful shutdown instead of sleeping through it.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    private func gauge(_ partition: TopicPartition) -> Gauge {
        Gauge(
            label: Self.metricName,
            dimensions: [("stage", stage), ("topic", partition.topic), ("partition", String(partition.partition))],
            factory: metricsFactory)
    }
}
