public import CoreMetrics
public import Kafka
public import Logging
import Metrics
public import ServiceLifecycle

/// Publishes `kafka_consumergroup_lag{consumergroup,topic,partition}` for the partitions this
/// replica owns, under kafka_exporter's names so its dashboards and alerts work unchanged.
///
/// Each partition is owned by exactly one replica, so summing over replicas gives the group's
/// lag without double counting; revoked partitions' series are removed.
public struct ConsumerLagReporter: Service {
    private let admin: KafkaAdmin
    private let consumer: KafkaConsumer
    private let group: String
    private let interval: Duration
    private let logger: Logger
    private let metricsFactory: any MetricsFactory

    public init(
        admin: KafkaAdmin, consumer: KafkaConsumer, group: String, interval: Duration = .seconds(10), logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.metricsFactory = metricsFactory
        self.admin = admin
        self.consumer = consumer
        self.group = group
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        var reported: Set<TopicPartition> = []
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let owned = consumer.assignment
            do {
                let watermarks = try await admin.highWatermarks(owned)
                let committed = try await admin.committedOffsets(group: group, partitions: owned)
                for partition in owned {
                    let lag = ConsumerLag(
                        group: group, topic: partition.topic, partition: partition.partition,
                        committedOffset: committed[partition], highWatermark: watermarks[partition] ?? 0
                    )
                    gauge("kafka_consumergroup_lag", partition).record(lag.lag)
                    gauge("kafka_consumergroup_current_offset", partition).record(lag.committedOffset ?? -1)
                }
                for gone in reported.subtracting(owned) {
                    gauge("kafka_consumergroup_lag", gone).destroy()
                    gauge("kafka_consumergroup_current_offset", gone).destroy()
                }
                reported = Set(owned)
            } catch {
                logger.warning("lag query failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    private func gauge(_ name: String, _ partition: TopicPartition) -> Gauge {
        Gauge(
            label: name,
            dimensions: [
                ("consumergroup", group), ("topic", partition.topic), ("partition", String(partition.partition)),
            ], factory: metricsFactory)
    }
}
