import Kafka
import LocalServices
import Pipeline
import TestSupport
import Testing
import Topology

/// Once every record up to the high watermark is finished, whatever its outcome, the group's
/// committed offset is the high watermark: lag returns to 0 and a restart replays nothing.
///
/// Each burst ends every partition with a run of records that finish at about the same time
/// (their outcomes are written together and acknowledged in one batch), which is when lanes
/// of one partition store their offsets concurrently.
@Suite(.timeLimit(.minutes(3))) struct OffsetsReachTheEndTests {
    private static let partitions: Int32 = 4

    /// How a burst ends on every partition.
    enum Ending: String, CaseIterable, Sendable {
        case rejected, duplicate, skipped, deadLettered
    }

    @Test(arguments: Ending.allCases)
    func committedOffsetReachesTheHighWatermarkAfterEveryBurst(ending: Ending) async throws {
        let kafka = try await TestKafka.shared(topics: ["in": Self.partitions, "out": 2, "rejected": 1, "in.dlq": 1])
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        let idempotency = InMemoryIdempotency()
        let replica = try RuntimeReplica(kafka: kafka, retries: InMemoryRetryStore(), idempotency: idempotency) {
            $0.retryPolicy = RetryPolicy(
                initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(10), multiplier: 1, jitter: 0,
                maxAttempts: 1)
        }
        let input = kafka.topic("in")
        let inputs = (0..<Self.partitions).map { TopicPartition(input, $0) }

        for burst in 0..<8 {
            var records: [KafkaRecord] = []
            for partition in 0..<Self.partitions {
                for index in 0..<20 {
                    records.append(
                        Self.event(
                            id: "b\(burst)-p\(partition)-\(index)", action: "ok", partition: partition, on: input))
                }
                for index in 0..<24 {
                    records.append(Self.ending(ending, burst: burst, partition: partition, index: index, on: input))
                }
            }
            _ = try await producer.send(records)
            let ends = try await admin.highWatermarks(inputs)
            do {
                // 30 s: the first burst also waits for the group's join, which took longer than
                // 15 s once on a clean clone's first run, with the whole suite starting beside it.
                _ = try await eventually(
                    "burst \(burst): committed == high watermark on every partition", timeout: .seconds(30)
                ) {
                    let committed = try await admin.committedOffsets(
                        group: kafka.group("test-stage"), partitions: inputs)
                    return inputs.allSatisfy { committed[$0] == ends[$0] } ? true : nil
                }
            } catch is TimedOut {
                let committed = try await admin.committedOffsets(group: kafka.group("test-stage"), partitions: inputs)
                Issue.record(
                    "burst \(burst) ending \(ending): committed \(committed.sorted { $0.key < $1.key }), high watermarks \(ends.sorted { $0.key < $1.key })"
                )
                break
            }
        }
        try await replica.stop()
        await producer.close()
    }

    private static func event(id: String, action: String, partition: Int32, on topic: String) -> KafkaRecord {
        KafkaRecord(
            topic: topic, partition: partition, key: Array(id.utf8),
            value: Array("{\"schema\":\"test.v1\",\"id\":\"\(id)\",\"action\":\"\(action)\"}".utf8)
        )
    }

    private static func ending(_ ending: Ending, burst: Int, partition: Int32, index: Int, on topic: String)
        -> KafkaRecord
    {
        switch ending {
        case .rejected:
            KafkaRecord(
                topic: topic, partition: partition, key: Array("bad\(index)".utf8),
                value: Array("not json \(burst)/\(index)".utf8))
        case .duplicate:
            // The burst's own first records, again: already done, so finished without work.
            event(id: "b\(burst)-p\(partition)-\(index % 20)", action: "ok", partition: partition, on: topic)
        case .skipped:
            event(id: "b\(burst)-p\(partition)-skip\(index)", action: "skip", partition: partition, on: topic)
        case .deadLettered:
            event(id: "b\(burst)-p\(partition)-fail\(index)", action: "fail", partition: partition, on: topic)
        }
    }
}
