import Foundation
public import Kafka
public import Logging
import Synchronization

/// Reads a topic from known offsets on (the high watermarks taken before something was
/// triggered), to find one record written after them without reading the topic's history.
///
/// A fresh consumer group first gets those offsets committed by a member that never reads;
/// then the reading member of the same group starts exactly there. `auto.offset.reset=latest`
/// alone would race: the position is resolved only after the first assignment, and a record
/// written meanwhile would be skipped.
public final class TopicTail: Sendable {
    private let consumer: KafkaConsumer
    private let box = Box()
    private let reader: Task<Void, Never>

    /// What the reading task and the callers of ``first(until:where:)`` share.
    private final class Box: Sendable {
        let records = Mutex<[KafkaMessage]>([])
        let assigned = Mutex<Set<TopicPartition>>([])
    }

    /// True for the first caller only: the marker is closed by the watchdog or after its commit.
    private final class FirstCall: Sendable {
        private let called = Mutex(false)

        func claim() -> Bool {
            called.withLock { called in
                defer { called = true }
                return !called
            }
        }
    }

    /// - Parameter offsets: where each partition of `topic` starts (every partition of it).
    public static func start(
        cluster: KafkaCluster, topic: String,
        from offsets: [TopicPartition: Int64], deadline: ContinuousClock.Instant, logger: Logger
    ) async throws -> TopicTail {
        let group = "iap-selfcheck-\(UUID().uuidString.lowercased())"
        var configuration = cluster.consumer(groupId: group, topics: [topic], clientId: "iap-selfcheck")
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.autoOffsetReset = "latest"
        try await commit(offsets, configuration: configuration, deadline: deadline, logger: logger)
        let tail = try TopicTail(consumer: KafkaConsumer(configuration: configuration, logger: logger))
        // Reading from the start of the check, so the hops' times are the pipeline's, not a group join's.
        while tail.box.assigned.withLock({ !$0.isSuperset(of: offsets.keys) }) {
            guard ContinuousClock.now < deadline else {
                await tail.close()
                throw TopicTailError(description: "group \(group) was not assigned all of \(topic) in time")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return tail
    }

    private init(consumer: KafkaConsumer) throws {
        self.consumer = consumer
        let box = self.box
        reader = Task {
            for await event in consumer.events {
                switch event {
                case .messages(let batch): box.records.withLock { $0.append(contentsOf: batch) }
                case .assigned(let partitions): box.assigned.withLock { $0.formUnion(partitions) }
                case .revoked(let partitions, _, let acknowledgement):
                    box.assigned.withLock { $0.subtract(partitions) }
                    acknowledgement.acknowledge()
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

    /// Joins the group, commits `offsets` once all partitions are assigned, and leaves.
    private static func commit(
        _ offsets: [TopicPartition: Int64], configuration: KafkaConsumerConfiguration,
        deadline: ContinuousClock.Instant, logger: Logger
    ) async throws {
        let marker = try KafkaConsumer(configuration: configuration, logger: logger)
        // Closing ends `events`, so a group that never forms ends the wait below.
        let closing = FirstCall()
        let closeOnce = { @Sendable in
            if closing.claim() { await marker.close() }
        }
        let watchdog = Task {
            try await Task.sleep(until: deadline)
            await closeOnce()
        }
        defer { watchdog.cancel() }
        let wanted = Set(offsets.keys)
        let committed = Task { () -> (any Error)? in
            var assigned: Set<TopicPartition> = []
            for await event in marker.events {
                switch event {
                case .assigned(let partitions):
                    assigned.formUnion(partitions)
                    guard assigned.isSuperset(of: wanted) else { continue }
                    // The assignment is announced before librdkafka applies it: store until it took.
                    for attempt in 1...100 {
                        do {
                            try marker.store(offsets.map { TopicPartitionOffset($0.key, offset: $0.value) })
                            try await marker.commit()
                            return nil
                        } catch {
                            if attempt == 100 { return error }
                            try? await Task.sleep(for: .milliseconds(50))
                        }
                    }
                case .messages: break
                case .revoked(_, _, let acknowledgement): acknowledgement.acknowledge()
                }
            }
            return TopicTailError(
                description: "group \(configuration.groupId) was not assigned \(wanted.sorted()) in time")
        }
        let outcome = await committed.value
        await closeOnce()
        if let outcome { throw outcome }
    }
}

struct TopicTailError: Error, CustomStringConvertible {
    var description: String
}
