import Contracts
import Foundation
import Kafka
import LocalServices
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon
import Workers

/// `iap orders rebuild` against the mock broker and a real `redis-server`: the index comes back
/// from the compacted topic as compaction would leave it, and what Redis holds is kept.
@Suite(.timeLimit(.minutes(2))) struct OrderIndexRebuildTests {
    static let tokens = [
        "7e3d2a1c-0000-4000-8000-00000000000a", "7e3d2a1c-0000-4000-8000-00000000000b",
        "7e3d2a1c-0000-4000-8000-00000000000c",
    ]

    static func record(_ order: OrderEvent, on topic: String) throws -> KafkaRecord {
        KafkaRecord(
            topic: topic, key: order.appAccountToken.map { Array($0.utf8) },
            value: try EventEncoder.encode(order))
    }

    @Test func rebuildsTheLatestOrderPerKeyAndKeepsWhatRedisHolds() async throws {
        let kafka = try await TestKafka.shared(topics: ["iap.orders": 3])
        let cluster = kafka.cluster
        let topic = kafka.topic("iap.orders")
        let producer = try TestKafka.producer(cluster)
        let first = OrderEvent(
            orderId: "o-1", userId: "u-1", productId: "p", bundleId: "b", appAccountToken: Self.tokens[0], quantity: 1)
        let replaced = OrderEvent(
            orderId: "o-1", userId: "u-9", productId: "p", bundleId: "b", appAccountToken: Self.tokens[0], quantity: 3)
        let second = OrderEvent(
            orderId: "o-2", userId: "u-2", productId: "p", bundleId: "b", appAccountToken: Self.tokens[1])
        let deleted = OrderEvent(
            orderId: "o-3", userId: "u-3", productId: "p", bundleId: "b", appAccountToken: Self.tokens[2])
        _ = try await producer.send([
            try Self.record(first, on: topic), try Self.record(second, on: topic), try Self.record(deleted, on: topic),
            KafkaRecord(topic: topic, key: "junk", value: "not an order"),
            try Self.record(replaced, on: topic),
            KafkaRecord(topic: topic, key: Array(Self.tokens[2].utf8), value: []),
        ])

        try await withRedisClient { _, client in
            let index = RedisOrderIndex(client: client)
            // Match stored o-2 already, with a user the topic does not have: it must stay.
            var stored = second
            stored.userId = "u-kept"
            try await index.put(stored)

            let report = try await OrderIndexRebuild.run(
                cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers), topic: topic, index: index,
                logger: TestKafka.logger
            )
            var expected = RebuildReport()
            expected.records = 6
            expected.values = 2
            expected.written = 1
            expected.alreadyPresent = 1
            expected.malformed = 1
            expected.deleted = 1
            #expect(report == expected)
            #expect(try await index.order(orderId: "o-1") == replaced)
            #expect(try await index.order(appAccountToken: Self.tokens[0]) == replaced)
            #expect(try await index.order(orderId: "o-2") == stored)
            #expect(try await index.order(orderId: "o-3") == nil)
            #expect(try await index.order(appAccountToken: Self.tokens[2]) == nil)

            // Run again: everything is present now, nothing is written.
            let again = try await OrderIndexRebuild.run(
                cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers), topic: topic, index: index,
                logger: TestKafka.logger
            )
            #expect(again.written == 0)
            #expect(again.alreadyPresent == 2)
        }
    }

    @Test func anEmptyTopicRebuildsNothingWithoutWaiting() async throws {
        let kafka = try await TestKafka.shared(topics: ["iap.orders": 4])
        let cluster = kafka.cluster
        let topic = kafka.topic("iap.orders")
        try await withRedisClient { _, client in
            let report = try await OrderIndexRebuild.run(
                cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers), topic: topic,
                index: RedisOrderIndex(client: client),
                logger: TestKafka.logger, idleTimeout: .seconds(1)
            )
            #expect(report == RebuildReport())
        }
    }
}
