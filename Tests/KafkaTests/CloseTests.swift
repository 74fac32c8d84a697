import Kafka
import LocalServices
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(3))) struct CloseTests {
    /// An application that stopped reading events to shut down never acknowledges a revocation
    /// that arrives meanwhile (a rebalance during the drain). Its `close()` must still return
    /// at once: it drained before asking, and the poll thread would otherwise wait out the whole
    /// revocation drain timeout before it could leave the group.
    @Test func closeDoesNotWaitOutARevocationNobodyAcknowledged() async throws {
        let kafka = try await TestKafka.shared(topics: ["t": 4])
        var configuration = TestKafka.consumerConfiguration(
            kafka.cluster, group: kafka.group("g"), topics: [kafka.topic("t")])
        configuration.revocationDrainTimeout = .seconds(90)
        let first = try KafkaConsumer(configuration: configuration, logger: TestKafka.logger)
        var events = first.events.makeAsyncIterator()
        while let event = await events.next() {
            if case .assigned = event { break }
        }

        // A second member joins: the group takes partitions from the first, whose revocation
        // is read but never acknowledged.
        let second = ConsumerProbe(try KafkaConsumer(configuration: configuration, logger: TestKafka.logger))
        while let event = await events.next() {
            if case .revoked = event { break }
        }

        let clock = ContinuousClock()
        let closing = clock.now
        await first.close()
        let took = clock.now - closing
        #expect(took < .seconds(45), "close() waited \(took) for a revocation nobody acknowledged (timeout 90 s)")

        try await eventually("the second member owns every partition") {
            second.assignment.count == 4 ? true : nil
        }
        await second.close()
    }

    /// A bounded read of a topic with nothing to read (a worker's empty delivery journal at
    /// start) must not leave its consumer's handle behind: a consumer that joined its group and
    /// closed before its first assignment cannot be destroyed on librdkafka 2.0.2 (#4312), and
    /// every worker kept one, with its threads and memory, for as long as it ran (issue 23).
    @Test func aBoundedReadOfAnEmptyTopicLeavesNoHandleBehind() async throws {
        let kafka = try await TestKafka.shared(topics: ["empty": 4])
        let capture = LogCapture()
        let configuration = BoundedTopicRead.configuration(
            cluster: KafkaCluster(bootstrapServers: kafka.cluster.bootstrapServers),
            groupId: kafka.group("bounded-empty"),
            topic: kafka.topic("empty"), clientId: "bounded-empty")
        let read = try await BoundedTopicRead.run(configuration, logger: capture.logger()) {
            records, consumer in
            try await consumer.commit()
            return records.count
        }
        #expect(read == 0)
        #expect(!capture.lines.contains { $0.contains("never got an assignment") }, "\(capture.lines)")
    }
}
