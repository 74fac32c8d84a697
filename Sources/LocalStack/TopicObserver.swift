import Foundation
public import Kafka
public import Logging
import Synchronization

/// Reads topics from the beginning in a throwaway group and keeps every record once, for the
/// demo's and benchmarks' own bookkeeping of what the pipeline wrote.
///
/// The group commits nothing, so a member that loses its partitions (its session expiring
/// through a broker outage) reads them again from the start when they come back: a record is
/// kept by its position once, and the copies are only counted (``rereadRecords``), so that a
/// soak's count of repeated deliveries is the pipeline's, not the observer's.
public final class TopicObserver: Sendable {
    private let consumer: KafkaConsumer
    private let box = Box()
    private let reader: Task<Void, Never>
    private let bootstrap: String
    private let topics: [String]
    private let logger: Logger

    private final class Box: Sendable {
        struct Read {
            var records: [KafkaMessage] = []
            var positions: Set<TopicPartitionOffset> = []
            var rereads = 0
        }
        let read = Mutex(Read())

        func keep(_ batch: [KafkaMessage]) {
            read.withLock { read in
                for record in batch {
                    let position = TopicPartitionOffset(
                        TopicPartition(record.topic, record.partition), offset: record.offset)
                    if read.positions.insert(position).inserted {
                        read.records.append(record)
                    } else {
                        read.rereads += 1
                    }
                }
            }
        }
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
                case .messages(let batch): box.keep(batch)
                case .assigned: break
                case .revoked(_, _, let acknowledgement): acknowledgement.acknowledge()
                }
            }
        }
    }

    public var records: [KafkaMessage] { box.read.withLock { $0.records } }

    /// Records read again after the group gave their partitions back (kept once in ``records``).
    public var rereadRecords: Int { box.read.withLock { $0.rereads } }

    /// Returns once every record its topics hold now has been read (each partition up to the
    /// high watermark taken at the call): with the writers done, nothing more is coming.
    public func waitUntilCaughtUp(timeout: Duration = .seconds(60)) async throws {
        let admin = try KafkaAdmin(bootstrapServers: bootstrap, logger: logger)
        let last = try await admin.lastOffsets(of: topics)
        let deadline = ContinuousClock.now + timeout
        while true {
            let behind = last.unreached(by: box.read.withLock { $0.records.lastOffsets() })
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
