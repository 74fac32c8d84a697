import Foundation
import Kafka
import LocalServices
import Pipeline
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct JournaledRetryStoreTests {
    /// A record in flight while Redis was emptied can schedule its wait into the empty Redis at
    /// the wait's deadline, where its stage's note of the wait is gone, so the order it waits
    /// for releases nothing. The restore from the journal must still make that wait due at
    /// once; a retry keeps the due time the journal gives it (Apple's Retry-After).
    @Test func restoreMakesAWaitDueAtOnceOverALaterCopyInTheIndex() async throws {
        let kafka = try await TestKafka.shared(topics: ["match.delayed": 1])
        let producer = try TestKafka.producer(kafka.cluster)
        try await withRedisClient { _, client in
            let journal = DeliveryJournal(topic: kafka.topic("match.delayed"), producer: producer)
            let store = JournaledRetryStore(journal: journal, index: RedisRetryStore(client: client, stage: "match"))
            let wait = ScheduledDelivery(
                id: "iap.verified/3/17/wait", payload: Array("waits".utf8), kind: .wait, delay: .zero,
                notBefore: Date().addingTimeInterval(600),
                waiting: .init(on: "order", since: Date().addingTimeInterval(-5)))
            let retry = ScheduledDelivery(
                id: "iap.verified/3/18/1", payload: Array("retries".utf8), kind: .retry, delay: .seconds(600))
            try await store.schedule(wait)
            try await store.schedule(retry)
            #expect(try await store.claimDue(limit: 10, lease: .seconds(60)).isEmpty)

            let contents = try await DeliveryJournal.read(
                topic: journal.topic, cluster: KafkaCluster(bootstrapServers: kafka.cluster.bootstrapServers),
                logger: TestKafka.logger, idleTimeout: .seconds(5))
            #expect(Set(contents.owed.map(\.id)) == [wait.id, retry.id])
            try await store.restore(contents)

            let claimed = try await store.claimDue(limit: 10, lease: .seconds(60))
            #expect(claimed == [ClaimedRetry(id: wait.id, payload: wait.payload)])
            #expect(try await store.depth() == 2, "the retry is still scheduled, for later")
        }
        await producer.close()
    }
}
