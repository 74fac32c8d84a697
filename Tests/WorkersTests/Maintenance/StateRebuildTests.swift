import AppStoreModels
import Contracts
import Kafka
import LocalServices
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon
import Workers

/// Match's bindings and grant's states come back from their compacted topics as compaction would
/// leave them, and what Redis holds (written since the loss, so newer) is kept (decision D35).
@Suite(.timeLimit(.minutes(2))) struct StateRebuildTests {
    static func binding(_ originalTransactionId: String, _ userId: String, on topic: String) throws -> KafkaRecord {
        let binding = OwnershipBinding(originalTransactionId: originalTransactionId, userId: userId)
        return KafkaRecord(
            topic: topic, key: Array(binding.partitionKey.utf8), value: try EventEncoder.encode(binding))
    }

    static func state(_ state: EntitlementState, on topic: String) throws -> KafkaRecord {
        let record = EntitlementStateRecord(state: state)
        return KafkaRecord(
            topic: topic, key: Array(record.partitionKey.utf8),
            value: try EventEncoder.encode(record))
    }

    @Test func bindingsComeBackAndWhatRedisHoldsIsKept() async throws {
        let kafka = try await TestKafka.shared(topics: ["iap.ownership": 3])
        let cluster = kafka.cluster
        let topic = kafka.topic("iap.ownership")
        let producer = try TestKafka.producer(cluster)
        _ = try await producer.send([
            try Self.binding("100", "u-1", on: topic), try Self.binding("101", "u-2", on: topic),
            try Self.binding("102", "u-3", on: topic),
            try Self.binding("100", "u-1", on: topic),  // every matched record carries its binding again
            KafkaRecord(topic: topic, key: "103", value: "not a binding"),
            KafkaRecord(topic: topic, key: Array("102".utf8), value: []),
        ])
        await producer.close()
        try await withRedisClient { _, client in
            let store = RedisOwnershipStore(client: client)
            // Bound since the loss, by a record decided before the worker stopped: it stays.
            _ = try await store.bind(originalTransactionId: "101", userId: "u-kept")

            let report = try await StateRebuild.ownership(
                from: topic, cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers), into: store,
                logger: TestKafka.logger)
            var expected = RebuildReport()
            expected.records = 6
            expected.values = 2
            expected.written = 1
            expected.alreadyPresent = 1
            expected.malformed = 1
            expected.deleted = 1
            #expect(report == expected)
            #expect(try await store.owner(originalTransactionId: "100") == "u-1")
            #expect(try await store.owner(originalTransactionId: "101") == "u-kept")
            #expect(try await store.owner(originalTransactionId: "102") == nil)
            #expect(try await store.owner(originalTransactionId: "103") == nil)
            // Bindings are forever, rebuilt ones too.
            #expect(try await pttl(client, "iap:owner:{100}") == -1)
        }
    }

    @Test func statesComeBackWithTheExpiryIndexTheirSavesKeep() async throws {
        let kafka = try await TestKafka.shared(topics: ["iap.entitlement-states": 3])
        let cluster = kafka.cluster
        let topic = kafka.topic("iap.entitlement-states")
        let producer = try TestKafka.producer(cluster)
        var active = StateFixtures.entitlement()
        active.status = .active
        active.revokedTransactionIds = []
        var renewed = active
        renewed.transactionId = "2000000000000009"
        renewed.expiresDate = Timestamp(millisecondsSince1970: 1_768_000_000_000)
        var revoked = StateFixtures.entitlement()
        revoked.originalTransactionId = "3000000000000001"
        var kept = active
        kept.originalTransactionId = "4000000000000001"
        var savedSinceTheLoss = kept
        savedSinceTheLoss.status = .expired
        _ = try await producer.send([
            try Self.state(active, on: topic), try Self.state(revoked, on: topic), try Self.state(kept, on: topic),
            try Self.state(renewed, on: topic),
        ])
        await producer.close()
        try await withRedisClient { _, client in
            let store = RedisEntitlementStateStore(client: client)
            try await store.save(savedSinceTheLoss)

            let report = try await StateRebuild.entitlementStates(
                from: topic, cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers),
                into: store,
                logger: TestKafka.logger)
            #expect(report.values == 3)
            #expect(report.written == 2)
            #expect(report.alreadyPresent == 1)
            #expect(try await store.state(originalTransactionId: active.originalTransactionId) == renewed)
            #expect(try await store.state(originalTransactionId: revoked.originalTransactionId) == revoked)
            #expect(try await store.state(originalTransactionId: kept.originalTransactionId) == savedSinceTheLoss)
            // Only the active subscription is indexed, at its latest period's end.
            let index = try await client.send("ZRANGE", "iap:subscription-expiries", "0", "-1", "WITHSCORES")
            #expect(
                index.array?.compactMap(\.string) == [renewed.originalTransactionId, "1768000000000"],
                "got \(index)")
        }
    }

    @Test func anEmptyTopicRebuildsNothingWithoutWaiting() async throws {
        let kafka = try await TestKafka.shared(topics: ["iap.ownership": 4])
        let cluster = kafka.cluster
        let topic = kafka.topic("iap.ownership")
        try await withRedisClient { _, client in
            let report = try await StateRebuild.ownership(
                from: topic, cluster: KafkaCluster(bootstrapServers: cluster.bootstrapServers),
                into: RedisOwnershipStore(client: client), logger: TestKafka.logger, idleTimeout: .seconds(1))
            #expect(report == RebuildReport())
        }
    }
}
