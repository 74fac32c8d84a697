import Foundation
import Kafka
import LocalServices
import Pipeline
import TestSupport
import Testing
import Topology

/// A stage's batched inputs (D62): a poll's records handled together, with no lock; a failure
/// retried in place, whole; nothing stored past a batch before it is done; a record that cannot
/// be decoded rejected as a single record's would be; the stage's other inputs unchanged.
@Suite(.timeLimit(.minutes(2))) struct BatchedInputTests {
    static let topics: [String: Int32] = ["in": 1, "trail": 2, "out": 1, "rejected": 1]

    static func events(_ prefix: String, _ count: Int, action: String = "ok") -> [(id: String, action: String)] {
        (0..<count).map { (id: "\(prefix)\($0)", action: action) }
    }

    static func committed(_ admin: KafkaAdmin, _ kafka: SharedKafka, topic: String) async throws -> Int64 {
        let partitions = (0..<(topics[topic] ?? 1)).map { TopicPartition(kafka.topic(topic), $0) }
        let offsets = try await admin.committedOffsets(group: kafka.group("test-stage"), partitions: partitions)
        return partitions.reduce(0) { $0 + max(0, offsets[$1] ?? 0) }
    }

    @Test func aPollsRecordsAreHandledTogetherWithoutALockAndTheOtherInputRunsSingly() async throws {
        let kafka = try await TestKafka.shared(topics: Self.topics)
        let producer = try TestKafka.producer(kafka.cluster)
        let admin = try KafkaAdmin(bootstrapServers: kafka.cluster.bootstrapServers, logger: TestKafka.logger)
        let trail = Self.events("t", 200)
        try await TestEvents.publish(producer, to: kafka.topic("trail"), trail)
        _ = try await producer.send([KafkaRecord(topic: kafka.topic("trail"), key: "bad", value: "not json")])
        try await TestEvents.publish(producer, to: kafka.topic("in"), Self.events("s", 5))
        let idempotency = InMemoryIdempotency()
        let stage = TestStage(output: kafka.topic("out"), batched: [kafka.topic("trail")])
        let replica = try RuntimeReplica(
            kafka: kafka, stage: stage, retries: InMemoryRetryStore(), idempotency: idempotency,
            inputs: ["in", "trail"])

        try await eventually("the trail committed to its end") {
            try await Self.committed(admin, kafka, topic: "trail") == 201 ? true : nil
        }
        try await eventually("the other input committed") {
            try await Self.committed(admin, kafka, topic: "in") == 5 ? true : nil
        }
        let batches = stage.observations.batches
        #expect(batches.flatMap { $0 }.sorted() == trail.map(\.id).sorted(), "every entry once")
        #expect(batches.count < trail.count, "entries of one poll were handled together: \(batches.map(\.count))")
        #expect(
            Set(stage.observations.handled.map(\.id)) == Set(Self.events("s", 5).map(\.id)),
            "the other input's records ran singly, each through handle(_:message:)")
        #expect(idempotency.isDoneCount(of: Self.events("s", 5).map(\.id)) == 5)
        #expect(idempotency.isDoneCount(of: trail.map(\.id)) == 0, "a batched record takes no lock")

        let rejected = try ConsumerProbe(kafka.cluster, group: kafka.group("check"), topics: [kafka.topic("rejected")])
        let reject = try #require(try await rejected.waitForMessages(1).first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(reject.value)) as? [String: Any])
        #expect(body["reason"] as? String == "malformed_event")
        #expect(body["event"] as? String == "not json")
        #expect(reject.headers.last(named: "source_topic")?.stringValue == kafka.topic("trail"))
        try await replica.stop()
        await rejected.close()
        await producer.close()
    }

    @Test func aFailingBatchIsRetriedInPlaceWholeAndNothingIsStoredBeforeItIsDone() async throws {
        let kafka = try await TestKafka.shared(topics: Self.topics)
        let producer = try TestKafka.producer(kafka.cluster)
        let admin = try KafkaAdmin(bootstrapServers: kafka.cluster.bootstrapServers, logger: TestKafka.logger)
        let trail = Self.events("f", 50)
        try await TestEvents.publish(producer, to: kafka.topic("trail"), trail)
        let stage = TestStage(output: kafka.topic("out"), batched: [kafka.topic("trail")])
        stage.observations.failBatches(3)
        let retries = InMemoryRetryStore()
        let replica = try RuntimeReplica(
            kafka: kafka, stage: stage, retries: retries, idempotency: InMemoryIdempotency(), inputs: ["trail"])

        try await eventually("the failures spent") { stage.observations.batchFailures == 3 ? true : nil }
        try await eventually("the trail committed to its end") {
            try await Self.committed(admin, kafka, topic: "trail") == 50 ? true : nil
        }
        #expect(stage.observations.batches.flatMap { $0 }.sorted() == trail.map(\.id).sorted())
        #expect(try await retries.depth() == 0, "retried in place: nothing scheduled, nothing dead-lettered")
        try await replica.stop()
        await producer.close()
    }

    @Test func aCrashMidBatchStoresNothingPastItAndTheNextOwnerHandlesItAgain() async throws {
        let kafka = try await TestKafka.shared(topics: Self.topics)
        let producer = try TestKafka.producer(kafka.cluster)
        let admin = try KafkaAdmin(bootstrapServers: kafka.cluster.bootstrapServers, logger: TestKafka.logger)
        // One key: one partition, the held record last at offset 20.
        let trail = Self.events("c", 20) + [(id: "held", action: "block")]
        _ = try await producer.send(
            trail.map { event in
                KafkaRecord(
                    topic: kafka.topic("trail"), key: "k",
                    value: "{\"schema\":\"test.v1\",\"id\":\"\(event.id)\",\"action\":\"\(event.action)\"}")
            })
        let first = TestStage(output: kafka.topic("out"), batched: [kafka.topic("trail")])
        let crashed = try RuntimeReplica(
            kafka: kafka, stage: first, retries: InMemoryRetryStore(), idempotency: nil, inputs: ["trail"])
        try await eventually("the held batch at the gate") { first.observations.heldBatches == 1 ? true : nil }
        try await Task.sleep(for: .milliseconds(600))  // several auto-commit intervals
        await crashed.kill()
        #expect(
            try await Self.committed(admin, kafka, topic: "trail") <= 20,
            "nothing stored past the held record's batch")
        #expect(!first.observations.batches.flatMap { $0 }.contains("held"))

        let second = TestStage(output: kafka.topic("out"), batched: [kafka.topic("trail")])
        second.gate.open()
        let replica = try RuntimeReplica(
            kafka: kafka, stage: second, retries: InMemoryRetryStore(), idempotency: nil, inputs: ["trail"])
        try await eventually("the trail committed to its end") {
            try await Self.committed(admin, kafka, topic: "trail") == 21 ? true : nil
        }
        #expect(second.observations.batches.flatMap { $0 }.contains("held"), "the held batch handled again")
        try await replica.stop()
        await producer.close()
    }
}
