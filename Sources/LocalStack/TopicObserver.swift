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
    private let bootstrap: String
    private let topics: [String]
    private let logger: Logger

    private final class Box: Sendable {
        let records = Mutex<[KafkaMessage]>([])
    }

    public init(bootstrap: String, topics: [String], logger: Logger) throws {
        self.bootstrap = bootstrap
        self.topics = topics
        self.logger = logger
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

    /// Returns once every record its topics hold now has been read (each partition up to the
    /// high watermark taken at the call): with the writers done, nothing more is coming.
    public func waitUntilCaughtUp(timeout: Duration = .seconds(60)) async throws {
        let admin = try KafkaAdmin(bootstrapServers: bootstrap, logger: logger)
        let last = try await admin.lastOffsets(of: topics)
        let deadline = ContinuousClock.now + timeout
        while true {
            let behind = last.unreached(by: box.records.withLock { $0.lastOffsets() })
            if behind.isEmpty { return }
            guard ContinuousClock.now < deadline else {
                throw LocalStackError("the observer did not read \(behind) up to \(last) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    public func close() async {
        await consumer.close()
        await reader.value
    }
}
