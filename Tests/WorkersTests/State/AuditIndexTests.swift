import AppStoreModels
import Contracts
import Customers
import Foundation
import Kafka
import LocalServices
import Pipeline
import Redis
import TestSupport
import Testing
import WorkerCommon
import Workers

/// The audit index (D51): statuses and histories read from Redis are the fold of the trail in
/// any order and with repeats, and lost with Redis they come back from `iap.audit` the same.
@Suite(.timeLimit(.minutes(2))) struct AuditIndexTests {
    static let app = "com.example.game"

    static func entry(
        _ stage: String, _ decision: AuditDecision, event: String, transaction: String? = nil, at: Int64,
        user: String? = nil, reason: String? = nil, transactions: [String]? = nil, effects: [EntitlementAction]? = nil,
        bundleId: String? = app
    ) -> AuditEntry {
        var entry = AuditEntry(
            stage: stage, decision: decision, at: Timestamp(Date()).advanced(by: .milliseconds(at)),
            subject: AuditSubject(eventId: event, bundleId: bundleId, transactionId: transaction), userId: user,
            reason: reason)
        entry.transactions = transactions
        entry.effects = effects
        return entry.identified()
    }

    /// Two events of one transaction (the purchase, then the same purchase replayed by its owner),
    /// one refused event, one entry of no app.
    static let trail = [
        entry("intake", .accepted, event: "e-1", at: 0, user: "alice"),
        entry("verify", .verified, event: "e-1", transaction: "100", at: 1, transactions: ["100"]),
        entry("match", .matched, event: "e-1", transaction: "100", at: 2, user: "alice"),
        entry("grant", .changed, event: "e-1", transaction: "100", at: 3, user: "alice", effects: [.grant]),
        entry("intake", .accepted, event: "e-2", at: 4, user: "alice"),
        entry("verify", .verified, event: "e-2", transaction: "100", at: 5, transactions: ["100"]),
        entry("match", .matched, event: "e-2", transaction: "100", at: 6, user: "alice"),
        entry("grant", .noEffect, event: "e-2", transaction: "100", at: 7, user: "alice", reason: "already granted"),
        entry("intake", .rejected, event: "e-3", at: 8, reason: "malformed_event"),
        entry("intake", .rejected, event: "e-4", at: 9, reason: "unsupported_schema", bundleId: nil),
    ]

    struct Answers: Equatable {
        var statuses: [PurchaseStatus?]
        var history: TransactionHistory?
    }

    static func answers(_ index: RedisAuditIndex) async throws -> Answers {
        var statuses: [PurchaseStatus?] = []
        for event in ["e-1", "e-2", "e-3", "e-4"] {
            statuses.append(try await index.status(bundleId: app, eventId: event))
        }
        return Answers(statuses: statuses, history: try await index.history(bundleId: app, transactionId: "100"))
    }

    @Test func theIndexAnswersTheFoldOfTheTrailInAnyOrderAndWithRepeats() async throws {
        try await withRedisClient { _, client in
            let index = RedisAuditIndex(client: client, keys: try Keyspace(prefix: "audit-order:"))
            // Latest first, every other one repeated: grant's decisions before intake's.
            let arrival = Array(
                (Self.trail + Self.trail.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)).reversed())
            for entry in arrival { try await index.index([entry]) }
            let answers = try await Self.answers(index)
            #expect(answers.statuses[0]?.status == .granted && answers.statuses[0]?.userId == "alice")
            #expect(answers.statuses[1]?.status == .noEffect && answers.statuses[1]?.reason == "already granted")
            #expect(answers.statuses[2]?.status == .rejected && answers.statuses[2]?.reason == "malformed_event")
            #expect(answers.statuses[3] == nil, "an entry of no app names no status")
            let history = try #require(answers.history)
            #expect(history.entries.count == 8, "both events' decisions, each once")
            #expect(history.entries.map(\.decision).prefix(4) == [.accepted, .verified, .matched, .changed])
        }
    }

    @Test func statusesAndHistoriesLostWithRedisComeBackFromTheTopicAsTheyWere() async throws {
        let kafka = try await TestKafka.shared(topics: ["iap.audit": 3])
        let topic = kafka.topic("iap.audit")
        let producer = try TestKafka.producer(kafka.cluster)
        let trail = AuditTrail(topic: topic, stage: "any")
        _ = try await producer.send(try Self.trail.map { try trail.record($0) })
        await producer.close()
        try await withRedisClient { _, client in
            let index = RedisAuditIndex(client: client, keys: try Keyspace(prefix: "audit-loss:"))
            try await index.index(Self.trail)
            let before = try await Self.answers(index)
            #expect(before.statuses.compactMap { $0 }.count == 3)

            _ = try await client.send("FLUSHDB")
            #expect(try await Self.answers(index).history == nil)
            let report = try await StateRebuild.auditIndex(
                from: topic, cluster: KafkaCluster(bootstrapServers: kafka.cluster.bootstrapServers), into: index,
                retention: RedisAuditIndex.defaultRetention, logger: TestKafka.logger)
            #expect(report.records == Self.trail.count && report.written == Self.trail.count - 1)
            #expect(try await Self.answers(index) == before)
        }
    }

    @Test func entriesOlderThanTheWindowAreNotRebuilt() async throws {
        let kafka = try await TestKafka.shared(topics: ["iap.audit-old": 1])
        let topic = kafka.topic("iap.audit-old")
        let producer = try TestKafka.producer(kafka.cluster)
        let old = Self.entry("intake", .accepted, event: "e-old", at: -8 * 24 * 3_600_000)
        _ = try await producer.send([try AuditTrail(topic: topic, stage: "intake").record(old)])
        await producer.close()
        try await withRedisClient { _, client in
            let index = RedisAuditIndex(client: client, keys: try Keyspace(prefix: "audit-old:"))
            let report = try await StateRebuild.auditIndex(
                from: topic, cluster: KafkaCluster(bootstrapServers: kafka.cluster.bootstrapServers), into: index,
                retention: RedisAuditIndex.defaultRetention, logger: TestKafka.logger)
            #expect(report.records == 1 && report.values == 0)
            #expect(try await index.status(bundleId: Self.app, eventId: "e-old") == nil)
        }
    }
}
