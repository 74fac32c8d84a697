public import Logging
import Synchronization

/// Reads one topic from a consumer group's position up to the end the topic has when the read
/// starts, for operator tools that act on "everything there is now" (`iap orders rebuild`,
/// `iap dlq replay`) rather than consume forever.
///
/// A partition starts at the group's committed offset, else at its low watermark, and is done
/// once the record before its high watermark was read; partitions with nothing between the two
/// are done at once. The group commits nothing unless `body` stores offsets and commits.
public enum BoundedTopicRead {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The consumer settings of a one-off reader of `topic` in `groupId`.
    public static func configuration(cluster: KafkaCluster, groupId: String, topic: String, clientId: String)
        -> KafkaConsumerConfiguration
    {
        var configuration = cluster.consumer(groupId: groupId, topics: [topic], clientId: clientId)
        // The smallest session a broker accepts by default (group.min.session.timeout.ms): a
        // one-off reader's group forms as fast as the broker allows.
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        return configuration
    }

    /// Reads the records, then runs `body` with them (in offset order per partition) and the
    /// consumer, still a member of its group, and closes the consumer.
    public static func run<Result: Sendable>(
        _ configuration: KafkaConsumerConfiguration,
        logger: Logger,
        idleTimeout: Duration = .seconds(30),
        _ body: ([KafkaMessage], KafkaConsumer) async throws -> Result
    ) async throws -> Result {
        try await read(configuration, logger: logger, idleTimeout: idleTimeout, into: [KafkaMessage]()) {
            records, batch in
            records += batch
        } then: { records, consumer in
            try await body(records, consumer)
        }
    }

    /// Reads the records batch by batch into `step` (each batch in offset order per partition)
    /// and returns what it made of them, holding one batch at a time: for a topic too large to
    /// hold whole (the audit trail a rebuild reads).
    public static func fold<State: Sendable>(
        _ configuration: KafkaConsumerConfiguration,
        logger: Logger,
        idleTimeout: Duration = .seconds(30),
        into initial: State,
        _ step: @escaping @Sendable (inout State, [KafkaMessage]) async throws -> Void
    ) async throws -> State {
        try await read(configuration, logger: logger, idleTimeout: idleTimeout, into: initial, step) { state, _ in
            state
        }
    }

    private static func read<State: Sendable, Result: Sendable>(
        _ configuration: KafkaConsumerConfiguration,
        logger: Logger,
        idleTimeout: Duration,
        into initial: State,
        _ step: @escaping @Sendable (inout State, [KafkaMessage]) async throws -> Void,
        then body: (State, KafkaConsumer) async throws -> Result
    ) async throws -> Result {
        guard configuration.topics.count == 1, let topic = configuration.topics.first else {
            throw Failure(description: "a bounded read takes exactly one topic")
        }
        // The consumer's own cluster properties (SASL, TLS): an admin without them would not get
        // past a secured cluster's handshake.
        let admin = try KafkaAdmin(
            bootstrapServers: configuration.bootstrapServers, clientId: configuration.clientId,
            properties: configuration.additionalProperties, logger: logger)
        guard let count = try await admin.partitionCounts(of: [topic])[topic], count > 0 else {
            throw Failure(description: "topic \(topic) does not exist")
        }
        let partitions = (0..<count).map { TopicPartition(topic, $0) }
        let lows = try await admin.lowWatermarks(partitions)
        let highs = try await admin.highWatermarks(partitions)
        let committed = try await admin.committedOffsets(group: configuration.groupId, partitions: partitions)
        let ends = Dictionary(
            uniqueKeysWithValues: partitions.compactMap { partition -> (TopicPartition, Int64)? in
                let start = max(committed[partition] ?? 0, lows[partition] ?? 0)
                guard let high = highs[partition], high > start else { return nil }
                return (partition, high)
            })

        // Nothing to read: a consumer that joined the group would be closed before its first
        // assignment, and librdkafka 2.0.2 cannot destroy such a handle (#4312), so it would
        // stay in the process for good with its threads (every worker that found its delivery
        // journal empty at start kept one; D61). Assigned nothing, it never joins: `body` still
        // gets a consumer that can commit.
        var configuration = configuration
        if ends.isEmpty { configuration.assignment = [] }
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        do {
            let state =
                ends.isEmpty
                ? initial
                : try await read(consumer, ends: ends, idleTimeout: idleTimeout, into: initial, step)
            let result = try await body(state, consumer)
            await consumer.close()
            return result
        } catch {
            await consumer.close()
            throw error
        }
    }

    private static func read<State: Sendable>(
        _ consumer: KafkaConsumer, ends: [TopicPartition: Int64], idleTimeout: Duration, into initial: State,
        _ step: @escaping @Sendable (inout State, [KafkaMessage]) async throws -> Void
    ) async throws -> State {
        let progress = Progress(remaining: Set(ends.keys))
        return try await withThrowingTaskGroup(of: State?.self) { group in
            group.addTask {
                var state = initial
                for await event in consumer.events {
                    switch event {
                    case .messages(let batch):
                        let (records, done) = progress.state.withLock { progress in
                            var records: [KafkaMessage] = []
                            for record in batch {
                                guard let end = ends[record.topicPartition], record.offset < end else { continue }
                                records.append(record)
                                if record.offset == end - 1 { progress.remaining.remove(record.topicPartition) }
                            }
                            progress.lastRecord = .now
                            return (records, progress.remaining.isEmpty)
                        }
                        try await step(&state, records)
                        // A slow step is not an idle broker.
                        progress.state.withLock { $0.lastRecord = .now }
                        if done { return state }
                    case .revoked(_, _, let acknowledgement):
                        acknowledgement.acknowledge()
                    case .assigned:
                        break
                    }
                }
                return nil
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: .milliseconds(200))
                    let (idle, remaining) = progress.state.withLock {
                        (ContinuousClock.now - $0.lastRecord, $0.remaining)
                    }
                    if idle > idleTimeout {
                        let names = remaining.sorted().map(\.description).joined(separator: ", ")
                        throw Failure(description: "no record for \(idleTimeout) before reaching the end of \(names)")
                    }
                }
            }
            defer { group.cancelAll() }
            while let finished = try await group.next() {
                if let state = finished { return state }
            }
            throw Failure(description: "the consumer stopped before reaching the end of its topic")
        }
    }

    /// What the reading task and its watchdog share.
    private final class Progress: Sendable {
        let state: Mutex<(remaining: Set<TopicPartition>, lastRecord: ContinuousClock.Instant)>

        init(remaining: Set<TopicPartition>) {
            self.state = Mutex((remaining: remaining, lastRecord: .now))
        }
    }
}
