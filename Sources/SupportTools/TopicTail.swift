import Foundation
public import Kafka
public import Logging
import Synchronization

/// Reads a topic from known offsets on (the high watermarks taken before something was
/// triggered), to find one record written after them without reading the topic's history.
///
/// The consumer is assigned the partitions at those offsets and joins no group: it starts
/// exactly there (`auto.offset.reset=latest` in a group would race, the position being resolved
/// only after the first assignment), commits nothing and leaves nothing behind, and skips the
/// broker's initial rebalance delay (3 s by default) that a fresh group pays.
public final class TopicTail: Sendable {
    private let consumer: KafkaConsumer
    private let box = Box()
    private let reader: Task<Void, Never>

    /// What the reading task and the callers of ``first(until:where:)`` share.
    private final class Box: Sendable {
        let records = Mutex<[KafkaMessage]>([])
    }

    /// - Parameter offsets: where each partition of `topic` starts (every partition of it).
    public static func start(
        cluster: KafkaCluster, topic: String, from offsets: [TopicPartition: Int64], logger: Logger
    ) throws -> TopicTail {
        // group.id is required of a consumer but never joined: the assignment is explicit.
        var configuration = cluster.consumer(
            groupId: "iap-selfcheck-\(UUID().uuidString.lowercased())", topics: [topic], clientId: "iap-selfcheck")
        configuration.assignment = offsets.map { TopicPartitionOffset($0.key, offset: $0.value) }
        return try TopicTail(consumer: KafkaConsumer(configuration: configuration, logger: logger))
    }

    private init(consumer: KafkaConsumer) throws {
        self.consumer = consumer
        let box = self.box
        reader = Task {
            for await event in consumer.events {
                switch event {
                case .messages(let batch): box.records.withLock { $0.append(contentsOf: batch) }
                case .assigned: break
                case .revoked(_, _, let acknowledgement): acknowledgement.acknowledge()
                }
            }
        }
    }

    /// The first record read so far that `matches`, waiting for more until `deadline`.
    public func first(
        until deadline: ContinuousClock.Instant, where matches: @Sendable (KafkaMessage) -> Bool
    ) async -> KafkaMessage? {
        while true {
            if let record = box.records.withLock({ $0.first(where: matches) }) { return record }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    public func close() async {
        await consumer.close()
        await reader.value
    }
}
