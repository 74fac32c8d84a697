import AppStoreModels
import Contracts
import Customers
import Kafka
import LocalServices
import Pipeline
import Redis
import TestSupport
import Testing
import WorkerCommon
import Workers

/// The customer state's read copy in Redis (D49): lost with Redis, it comes back from the
/// compacted `iap.customers` the same as before, and until then a missing record is never taken
/// for a new customer.
@Suite(.timeLimit(.minutes(2))) struct CustomerStoreTests {
    static func change(
        _ user: String, _ purchase: String, _ action: EntitlementAction, sequence: Int, status: EntitlementStatus
    ) -> EntitlementEvent {
        var event = EntitlementEvent(
            eventId: "\(purchase)|\(action.rawValue)|\(sequence)", action: action, userId: user, orderId: nil,
            bundleId: "com.example.game", productId: "remove_ads", productType: .nonConsumable, quantity: 1,
            transactionId: purchase, originalTransactionId: purchase, environment: .production,
            purchaseDate: Timestamp(millisecondsSince1970: 1_780_000_000_000), expiresDate: nil,
            revocationDate: nil, matchedBy: .user, warnings: [], source: .storeKit2, status: status)
        event.sequence = sequence
        return event
    }

    @Test func recordsLostWithRedisComeBackFromTheirTopicAsTheyWere() async throws {
        let kafka = try await TestKafka.shared(topics: ["iap.customers": 3])
        let topic = kafka.topic("iap.customers")
        let producer = try TestKafka.producer(kafka.cluster)
        let changes = [
            Self.change("u-1", "100", .grant, sequence: 1, status: .active),
            Self.change("u-2", "200", .grant, sequence: 1, status: .active),
            Self.change("u-1", "101", .grant, sequence: 1, status: .active),
            Self.change("u-1", "100", .revoke, sequence: 2, status: .revoked),
        ]
        try await withRedisClient { _, client in
            let store = RedisCustomerStore(client: client)
            // As the stage does: each new record published, then saved.
            for change in changes {
                var record =
                    try await store.record(bundleId: change.bundleId, userId: change.userId)
                    ?? CustomerRecord(bundleId: change.bundleId, userId: change.userId)
                #expect(record.apply(change) == .changed)
                _ = try await producer.send([
                    KafkaRecord(topic: topic, key: Array(record.key.utf8), value: try EventEncoder.encode(record))
                ])
                try await store.save(record)
            }
            let before = [
                try await store.record(bundleId: "com.example.game", userId: "u-1"),
                try await store.record(bundleId: "com.example.game", userId: "u-2"),
            ]
            #expect(before[0]?.purchases.count == 2 && before[0]?.purchases["100"]?.status == .revoked)

            _ = try await client.send("FLUSHDB")
            #expect(try await store.record(bundleId: "com.example.game", userId: "u-1") == nil)
            let report = try await StateRebuild.customers(
                from: topic, cluster: KafkaCluster(bootstrapServers: kafka.cluster.bootstrapServers), into: store,
                logger: TestKafka.logger)
            #expect(report.values == 2 && report.written == 2)
            let after = [
                try await store.record(bundleId: "com.example.game", userId: "u-1"),
                try await store.record(bundleId: "com.example.game", userId: "u-2"),
            ]
            #expect(after == before)
        }
        await producer.close()
    }

    @Test func aMissingRecordAfterALossIsNotANewCustomer() async throws {
        // A server of its own: FLUSHALL empties every database of the server.
        try await withPrivateRedisClient { _, client throws in
            let fence = GenerationFence(generation: StateGeneration(client: client, stage: "state"))
            fence.arm(try await fence.generation.establish())
            let store = RedisCustomerStore(client: client, fence: fence)
            #expect(try await store.record(bundleId: "com.example.game", userId: "u-1") == nil, "a new customer")
            _ = try await client.send("FLUSHALL")
            await #expect(throws: StateLost.self, "the record may have been lost") {
                try await store.record(bundleId: "com.example.game", userId: "u-1")
            }
        }
    }
}
