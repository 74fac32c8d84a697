import Kafka
import LocalServices
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct GroupTests {
    @Test func secondMemberTakesPartitionsCooperatively() async throws {
        let kafka = try await TestKafka.shared(topics: ["t": 4])
        let configuration = TestKafka.consumerConfiguration(
            kafka.cluster, group: kafka.group("grp"), topics: [kafka.topic("t")])
        let first = ConsumerProbe(try KafkaConsumer(configuration: configuration, logger: TestKafka.logger))
        _ = try await eventually("first member owns all 4 partitions") { first.assignment.count == 4 ? true : nil }

        let second = ConsumerProbe(try KafkaConsumer(configuration: configuration, logger: TestKafka.logger))
        try await eventually("partitions spread over both members") {
            first.assignment.count == 2 && second.assignment.count == 2 ? true : nil
        }
        #expect(first.assignment.isDisjoint(with: second.assignment))
        #expect(first.assignment.union(second.assignment).count == 4)
        // Cooperative: the first member gave up only what moved, in one incremental revoke.
        #expect(first.revocations.map(\.count) == [2])

        await second.close()
        try await eventually("first member takes back the partitions the second left") {
            first.assignment.count == 4 ? true : nil
        }
        await first.close()
    }

    @Test func pausedPartitionsDeliverNothingUntilResumed() async throws {
        let kafka = try await TestKafka.shared(topics: ["p": 1])
        let cluster = kafka.cluster
        let topic = kafka.topic("p")
        let producer = try TestKafka.producer(cluster)
        let probe = try ConsumerProbe(cluster, group: kafka.group("g"), topics: [topic])
        try await TestKafka.publish(producer, topic: topic, count: 3)
        try await probe.waitForMessages(3)

        try probe.consumer.pause([TopicPartition(topic, 0)])
        try await TestKafka.publish(producer, topic: topic, count: 3, prefix: "while-paused")
        // Give the fetcher several fetch cycles; a paused partition must yield nothing meanwhile.
        try await Task.sleep(for: .seconds(1))
        #expect(probe.messages.count == 3)

        try probe.consumer.resume([TopicPartition(topic, 0)])
        let all = try await probe.waitForMessages(6)
        #expect(all.map(\.offset) == [0, 1, 2, 3, 4, 5])
        await probe.close()
        await producer.close()
    }
}

@Suite(.timeLimit(.minutes(2))) struct AssignedReadTests {
    /// A reader given partitions and offsets starts exactly there and is no member of its group:
    /// a subscriber of the same group gets every partition, and nothing is committed for it.
    @Test func anAssignedReaderStartsAtItsOffsetsAndJoinsNoGroup() async throws {
        let kafka = try await TestKafka.shared(topics: ["a": 2])
        let cluster = kafka.cluster
        let topic = kafka.topic("a")
        let group = kafka.group("shared")
        let producer = try TestKafka.producer(cluster)
        _ = try await producer.send(
            (0..<5).map {
                KafkaRecord(topic: topic, partition: 0, key: Array("k".utf8), value: Array("early-\($0)".utf8))
            })

        var configuration = TestKafka.consumerConfiguration(cluster, group: group, topics: [topic])
        configuration.assignment = [TopicPartitionOffset(TopicPartition(topic, 0), offset: 3)]
        let reader = ConsumerProbe(try KafkaConsumer(configuration: configuration, logger: TestKafka.logger))
        let read = try await reader.waitForMessages(2)
        #expect(read.map(\.offset) == [3, 4])
        #expect(reader.assignment == [TopicPartition(topic, 0)])

        let member = try ConsumerProbe(cluster, group: group, topics: [topic])
        _ = try await eventually("the subscriber owns both partitions") { member.assignment.count == 2 ? true : nil }
        _ = try await producer.send([
            KafkaRecord(topic: topic, partition: 0, key: Array("k".utf8), value: Array("late".utf8))
        ])
        let later = try await reader.waitForMessages(3)
        #expect(later.map(\.offset) == [3, 4, 5])
        #expect(reader.revocations.isEmpty)

        await member.close()
        await reader.close()
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        let committed = try await admin.committedOffsets(group: group, partitions: [TopicPartition(topic, 0)])
        #expect(committed[TopicPartition(topic, 0)] == nil, "the reader stored nothing, so nothing was committed")
        await producer.close()
    }
}
