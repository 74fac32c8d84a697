import Kafka
import LocalServices
import Pipeline
import TestSupport
import Testing

/// `iap dlq list|replay` against the mock broker: dead letters go back to their source topic as
/// they were first published, once each, and the counts follow.
@Suite(.timeLimit(.minutes(2))) struct DeadLetterReplayTests {
    static func deadLetter(_ index: Int) -> KafkaRecord {
        KafkaRecord(
            topic: "iap.verify.dlq", key: Array("k\(index)".utf8), value: Array("v\(index)".utf8),
            headers: [
                KafkaHeader(name: "trace_id", string: "t\(index)"),
                KafkaHeader(name: PipelineHeaders.attempt, string: "7"),
                KafkaHeader(name: PipelineHeaders.sourceTopic, string: "iap.verify"),
                KafkaHeader(name: PipelineHeaders.sourcePartition, string: "0"),
                KafkaHeader(name: PipelineHeaders.sourceOffset, string: "\(100 + index)"),
                KafkaHeader(name: PipelineHeaders.sourceConsumerGroup, string: "iap-verify"),
                KafkaHeader(name: PipelineHeaders.sourceAttempts, string: "8"),
                KafkaHeader(name: PipelineHeaders.lastError, string: "apple down"),
            ]
        )
    }

    @Test func replaysEachDeadLetterOnceToItsSourceWithoutTheDeadLetterHeaders() async throws {
        let cluster = try await TestKafka.cluster(topics: ["iap.verify": 2, "iap.verify.dlq": 2])
        let producer = try TestKafka.producer(cluster)
        _ = try await producer.send((0..<3).map(Self.deadLetter))
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        let pending = { try await DeadLetterReplay.summarize(["iap.verify.dlq"], admin: admin)[0] }
        #expect(try await pending().held == 3)
        #expect(try await pending().pending == 3)

        let dryRun = try await DeadLetterReplay.replay(
            topic: "iap.verify.dlq", cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers),
            producer: producer, dryRun: true,
            logger: TestKafka.logger
        )
        #expect(dryRun.replayed == 0)
        #expect(Set(dryRun.entries.map(\.key)) == ["k0", "k1", "k2"])
        #expect(
            dryRun.entries.allSatisfy {
                $0.sourceTopic == "iap.verify" && $0.attempts == "8" && $0.lastError == "apple down"
            })
        #expect(try await pending().pending == 3)

        let firstTwo = try await DeadLetterReplay.replay(
            topic: "iap.verify.dlq", cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers),
            producer: producer, limit: 2,
            logger: TestKafka.logger
        )
        #expect(firstTwo.replayed == 2)
        #expect(try await pending().pending == 1)
        let rest = try await DeadLetterReplay.replay(
            topic: "iap.verify.dlq", cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers),
            producer: producer,
            logger: TestKafka.logger
        )
        #expect(rest.replayed == 1)
        #expect(try await pending().pending == 0)
        #expect(try await pending().held == 3)
        let nothing = try await DeadLetterReplay.replay(
            topic: "iap.verify.dlq", cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers),
            producer: producer,
            logger: TestKafka.logger, idleTimeout: .seconds(1)
        )
        #expect(nothing.replayed == 0)

        let probe = try ConsumerProbe(cluster, group: "check", topics: ["iap.verify"])
        try await probe.waitForMessages(3)
        let replayed = try await probe.waitUntilCaughtUp(on: "iap.verify", admin: admin)
        #expect(replayed.count == 3)
        #expect(Set(replayed.map { String(decoding: $0.value, as: UTF8.self) }) == ["v0", "v1", "v2"])
        for message in replayed {
            let index = String(decoding: message.value, as: UTF8.self).dropFirst()
            #expect(message.key.map { String(decoding: $0, as: UTF8.self) } == "k\(index)")
            #expect(message.headers.map(\.name) == ["trace_id"])
            #expect(message.headers.first?.stringValue == "t\(index)")
        }
        await probe.close()
    }
}
