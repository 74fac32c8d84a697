import Kafka
import LocalServices
import LocalStack
import TestSupport
import Testing

extension ScenarioTests {
    /// The observer that the demo, the soaks and the bench count the pipeline's output with.
    @Suite(.timeLimit(.minutes(2))) struct TopicObserverTests {
        /// Its group commits nothing, so a broker outage longer than its session gives its
        /// partitions back and it reads them again from the start: it keeps each record once and
        /// counts the copies, and a soak counts no repeated delivery the pipeline did not make.
        @Test func recordsReadAgainAfterAnOutageAreKeptOnce() async throws {
            let cluster = try await TestKafka.cluster(topics: ["out": 2])
            let producer = try TestKafka.producer(cluster)
            try await TestKafka.publish(producer, topic: "out", count: 20)
            let observer = try TopicObserver(
                bootstrap: cluster.bootstrapServers, topics: ["out"], logger: TestKafka.logger)
            try await observer.waitUntilCaughtUp()
            #expect(observer.records.count == 20)

            // Longer than the observer's 6 s session: the group forgets the member.
            try await cluster.setBrokerDown(1)
            try await Task.sleep(for: .seconds(10))
            try await cluster.setBrokerUp(1)
            try await eventually("the observer read its partitions again", timeout: .seconds(60)) {
                observer.rereadRecords == 20 ? true : nil
            }
            #expect(observer.records.count == 20)
            await observer.close()
            await producer.close()
        }
    }
}
