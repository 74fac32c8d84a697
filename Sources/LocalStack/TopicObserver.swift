import Foundation
public import Kafka
public import Logging
import Synchronization

/// Reads topics from the beginning in a throwaway group and keeps every record, for the demo's
/// and benchmarks' own bookkeeping of what the pipeline wrote.
public final class TopicObserver: Sendable {
    private let consumer: KafkaConsumer
    private let box = Box()
    private let reader: Task<Void, Never>

    private final class Box: Sendable {
        let records = Mutex<[KafkaMessage]>([])
    }

    public init(bootstrap: String, topics: [String], logger: Logger) throws {
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: bootstrap, groupId: "observer-\(UUID().uuidString)", topics: topics)
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        let box = self.box
        let consumer = self.consumer
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

    public var records: [KafkaMessage] { box.records.withLock { $0 } }

    public func close() async {
        await consumer.close()
        await reader.value
    }
}
