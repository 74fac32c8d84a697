import Foundation
public import Kafka
public import Logging
import Topology

/// What `iap dlq list` and `iap dlq replay` do with the `<topic>.dlq` topics, where the runtime
/// writes records that failed past their retry budget (unchanged, plus headers saying where
/// they came from and why they died).
///
/// Replaying re-publishes each pending dead letter to its source topic with its original key,
/// value and headers, the dead-letter headers removed, so the stage tries it afresh (attempt 0).
/// Progress is the consumer group `iap-dlq-replay`: its offsets are committed only after Kafka
/// acknowledged the re-published records, so a second replay sends only what came after. A
/// crash between the two sends some records again; the stages' idempotency guards absorb that.
public enum DeadLetterReplay {
    /// The consumer group whose committed offsets mark what was replayed.
    public static let group = "iap-dlq-replay"

    /// Headers the runtime adds when retrying, waiting or dead-lettering; a replayed record
    /// starts over (a record dead-lettered for waiting past `retry.maxWait` waits afresh).
    static let runtimeHeaders: Set<String> = [
        PipelineHeaders.attempt, PipelineHeaders.lastError, PipelineHeaders.sourceTopic,
        PipelineHeaders.sourcePartition,
        PipelineHeaders.sourceOffset, PipelineHeaders.sourceAttempts, PipelineHeaders.sourceConsumerGroup,
        PipelineHeaders.waitingSince, PipelineHeaders.waitMemo, PipelineHeaders.deliveryId,
    ]

    public struct Summary: Codable, Equatable, Sendable {
        public var topic: String
        /// Records the topic holds.
        public var held: Int64
        /// Held records not replayed yet.
        public var pending: Int64
    }

    /// One dead letter, as `--dry-run` lists it.
    public struct Entry: Codable, Equatable, Sendable {
        public var partition: Int32
        public var offset: Int64
        public var key: String?
        /// Where the record came from and goes back to.
        public var sourceTopic: String
        public var sourceOffset: String?
        public var attempts: String?
        public var lastError: String?
        public var bytes: Int
    }

    public struct Report: Codable, Equatable, Sendable {
        public var topic: String
        public var entries: [Entry]
        /// Records re-published (0 with `dryRun`).
        public var replayed: Int
        public var dryRun: Bool
    }

    public static func summarize(_ topics: [String], admin: KafkaAdmin) async throws -> [Summary] {
        let counts = try await admin.partitionCounts(of: topics)
        var summaries: [Summary] = []
        for topic in topics {
            let partitions = (0..<(counts[topic] ?? 0)).map { TopicPartition(topic, $0) }
            let lows = try await admin.lowWatermarks(partitions)
            let highs = try await admin.highWatermarks(partitions)
            let replayed = try await admin.committedOffsets(group: Self.group, partitions: partitions)
            var summary = Summary(topic: topic, held: 0, pending: 0)
            for partition in partitions {
                let low = lows[partition] ?? 0
                let high = highs[partition] ?? 0
                summary.held += high - low
                summary.pending += high - min(high, max(low, replayed[partition] ?? 0))
            }
            summaries.append(summary)
        }
        return summaries
    }

    /// Re-publishes up to `limit` pending dead letters of `topic` through `producer` and marks
    /// them replayed; with `dryRun`, only lists them.
    public static func replay(
        topic: String, cluster: KafkaCluster, producer: KafkaProducer, limit: Int? = nil, dryRun: Bool = false,
        logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> Report {
        let configuration = BoundedTopicRead.configuration(
            cluster: cluster, groupId: Self.group, topic: topic, clientId: "iap-dlq-replay"
        )
        return try await BoundedTopicRead.run(configuration, logger: logger, idleTimeout: idleTimeout) {
            records, consumer in
            // Records are in offset order per partition, so any prefix is a prefix of each partition.
            let chosen = limit.map { Array(records.prefix($0)) } ?? records
            let entries = chosen.map { Self.entry($0, dlqTopic: topic) }
            guard !dryRun, !chosen.isEmpty else {
                return Report(topic: topic, entries: entries, replayed: 0, dryRun: dryRun)
            }
            _ = try await producer.send(
                zip(chosen, entries).map { record, entry in
                    KafkaRecord(
                        topic: entry.sourceTopic, key: record.key.map(Array.init), value: Array(record.value),
                        headers: record.headers.filter { !Self.runtimeHeaders.contains($0.name) }
                    )
                })
            var next: [TopicPartition: Int64] = [:]
            for record in chosen { next[record.topicPartition] = record.offset + 1 }
            try consumer.store(next.map { TopicPartitionOffset($0.key, offset: $0.value) })
            try await consumer.commit()
            return Report(topic: topic, entries: entries, replayed: chosen.count, dryRun: false)
        }
    }

    private static func entry(_ record: KafkaMessage, dlqTopic: String) -> Entry {
        func header(_ name: String) -> String? { record.headers.last(named: name)?.stringValue }
        let fallback = PipelineFile.source(ofDeadLetterTopic: dlqTopic) ?? dlqTopic
        return Entry(
            partition: record.partition, offset: record.offset,
            key: record.key.map { String(decoding: $0, as: UTF8.self) },
            sourceTopic: header(PipelineHeaders.sourceTopic) ?? fallback,
            sourceOffset: header(PipelineHeaders.sourceOffset),
            attempts: header(PipelineHeaders.sourceAttempts), lastError: header(PipelineHeaders.lastError),
            bytes: record.value.count
        )
    }
}
