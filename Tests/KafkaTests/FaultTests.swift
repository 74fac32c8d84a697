import Kafka
import LocalServices
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct FaultTests {
    @Test func brokerDownForSecondsLosesNothing() async throws {
        let cluster = try await TestKafka.cluster(topics: ["f": 2])
        let producer = try TestKafka.producer(cluster)
        try await TestKafka.publish(producer, topic: "f", count: 10, prefix: "before")

        try await cluster.setBrokerDown(1)
        let pending = Task { try await TestKafka.publish(producer, topic: "f", count: 20, prefix: "during") }
        try await Task.sleep(for: .seconds(3))
        try await cluster.setBrokerUp(1)
        try await pending.value

        let probe = try ConsumerProbe(cluster, group: "g", topics: ["f"])
        let messages = try await probe.waitForMessages(30)
        let values = Set(messages.map { String(decoding: $0.value, as: UTF8.self) })
        #expect(values == Set((0..<10).map { "before-\($0)" } + (0..<20).map { "during-\($0)" }))
        #expect(messages.count == 30, "the idempotent producer must not duplicate on retry")
        await probe.close()
        await producer.close()
    }

    @Test func injectedProduceErrorsAreRetriedWithoutLossOrDuplicates() async throws {
        let cluster = try await TestKafka.cluster(topics: ["e": 1])
        await cluster.pushRequestErrors(.produce, [.notEnoughReplicas, .requestTimedOut, .notLeaderForPartition])
        let producer = try TestKafka.producer(cluster)
        try await TestKafka.publish(producer, topic: "e", count: 25)

        let probe = try ConsumerProbe(cluster, group: "g", topics: ["e"])
        try await probe.waitForMessages(25)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        let messages = try await probe.waitUntilCaughtUp(on: "e", admin: admin)
        #expect(messages.count == 25)
        #expect(messages.map(\.offset) == Array(0..<25))
        await probe.close()
        await producer.close()
    }

    @Test func failedCommitIsReportedAndALaterCommitLands() async throws {
        let cluster = try await TestKafka.cluster(topics: ["c": 1])
        let producer = try TestKafka.producer(cluster)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        try await TestKafka.publish(producer, topic: "c", count: 4)
        var configuration = TestKafka.consumerConfiguration(cluster, group: "g", topics: ["c"])
        configuration.autoCommitInterval = .seconds(60)  // only explicit commits in this test
        let probe = ConsumerProbe(try KafkaConsumer(configuration: configuration, logger: TestKafka.logger))
        try await probe.waitForMessages(4)
        try probe.storeAll()

        await cluster.pushRequestErrors(.offsetCommit, [.rebalanceInProgress])
        await #expect(throws: KafkaError.self) { try await probe.consumer.commit() }
        #expect(try await admin.committedOffsets(group: "g", partitions: [TopicPartition("c", 0)]).isEmpty)

        try await probe.consumer.commit()
        #expect(
            try await admin.committedOffsets(group: "g", partitions: [TopicPartition("c", 0)]) == [
                TopicPartition("c", 0): 4
            ])
        await probe.close()
        await producer.close()
    }
}
