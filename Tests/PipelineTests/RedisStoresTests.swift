import Foundation
import LocalServices
import Pipeline
import Redis
import TestSupport
import Testing

/// Locks of two minutes: none of these tests waits for one to expire, and a loaded machine
/// once stalled a test past a 5 s lock, which then rightly freed it.
@Suite(.timeLimit(.minutes(2))) struct RedisStoresTests {
    @Test func idempotencyGuardRemembersCompletedWorkAcrossClients() async throws {
        try await withRedisDatabase { server in
            let first = RedisClient(configuration: try server.configuration())
            let second = RedisClient(configuration: try server.configuration())
            let guardA = RedisIdempotencyGuard(client: first, stage: "s")
            let guardB = RedisIdempotencyGuard(client: second, stage: "s")
            guard case .acquired(let token) = try await guardA.begin("txn-1", lockTTL: .seconds(120), attempt: 0) else {
                Issue.record("first begin must acquire")
                return
            }
            #expect(try await guardB.begin("txn-1", lockTTL: .seconds(120), attempt: 0) == .busy)
            try await guardA.complete("txn-1", token: token, retention: .seconds(9 * 24 * 3600))
            #expect(try await guardB.begin("txn-1", lockTTL: .seconds(120), attempt: 0) == .alreadyDone)

            guard case .acquired(let other) = try await guardB.begin("txn-2", lockTTL: .seconds(120), attempt: 0) else {
                Issue.record("a different id is free")
                return
            }
            try await guardB.abandon("txn-2", token: other)
            guard case .acquired = try await guardA.begin("txn-2", lockTTL: .seconds(120), attempt: 0) else {
                Issue.record("an abandoned id can be taken again")
                return
            }
            await first.shutdown()
            await second.shutdown()
        }
    }

    /// A record whose retry is scheduled leaves a marker: a copy replayed after a crash (its
    /// offset not yet committed, the same attempt number) is superseded instead of calling
    /// Apple again before the Retry-After; the scheduled retry (a higher attempt) takes over.
    @Test func aScheduledRetrySupersedesOlderCopiesOfItsRecord() async throws {
        try await withRedisDatabase { server in
            let first = RedisClient(configuration: try server.configuration())
            let second = RedisClient(configuration: try server.configuration())
            defer {
                Task {
                    await first.shutdown()
                    await second.shutdown()
                }
            }
            let guardA = RedisIdempotencyGuard(client: first, stage: "s")
            let guardB = RedisIdempotencyGuard(client: second, stage: "s")
            guard case .acquired(let token) = try await guardA.begin("txn-9", lockTTL: .seconds(120), attempt: 0) else {
                Issue.record("first begin did not acquire")
                return
            }
            try await guardA.postpone("txn-9", token: token, untilAttempt: 1, ttl: .seconds(60))
            #expect(
                try await guardB.begin("txn-9", lockTTL: .seconds(120), attempt: 0) == .superseded, "the replayed copy")
            guard case .acquired(let retryToken) = try await guardB.begin("txn-9", lockTTL: .seconds(120), attempt: 1)
            else {
                Issue.record("the scheduled retry did not take the lock over")
                return
            }
            #expect(
                try await guardA.begin("txn-9", lockTTL: .seconds(120), attempt: 1) == .busy, "one holder at a time")
            try await guardB.complete("txn-9", token: retryToken, retention: .seconds(60))
            #expect(try await guardA.begin("txn-9", lockTTL: .seconds(120), attempt: 0) == .alreadyDone)
        }
    }

    @Test func retryStoreLeasesAndAcknowledges() async throws {
        try await withRedisClient { _, client in
            let store = RedisRetryStore(client: client, stage: "s")
            try await store.schedule(ScheduledDelivery(id: "a", payload: [1, 2], kind: .retry, delay: .zero))
            try await store.schedule(ScheduledDelivery(id: "a", payload: [9], kind: .retry, delay: .zero))
            try await store.schedule(ScheduledDelivery(id: "b", payload: [3], kind: .retry, delay: .seconds(60)))
            #expect(try await store.depth() == 2)
            #expect(
                try await store.claimDue(limit: 10, lease: .seconds(120)) == [ClaimedRetry(id: "a", payload: [1, 2])],
                "the first payload wins")
            #expect(try await store.claimDue(limit: 10, lease: .seconds(120)).isEmpty, "leased items stay hidden")
            try await store.schedule(ScheduledDelivery(id: "c", payload: [4], kind: .retry, delay: .zero))
            #expect(try await store.claimDue(limit: 10, lease: .milliseconds(200)).map(\.id) == ["c"])
            let back = try await eventually("a lapsed lease returns the item") { () -> [ClaimedRetry]? in
                let items = try await store.claimDue(limit: 10, lease: .seconds(120))
                return items.isEmpty ? nil : items
            }
            #expect(back.map(\.id) == ["c"])
            try await store.acknowledge(["c", "a"])
            #expect(try await store.depth() == 1, "only b, not yet due, is left")
        }
    }

    /// A wait's deadline holds in Redis as a retry's delay does: not due before `notBefore`.
    @Test func retryStoreKeepsAWaitUntilItsDeadline() async throws {
        try await withRedisClient { _, client in
            let store = RedisRetryStore(client: client, stage: "s")
            try await store.schedule(
                ScheduledDelivery(
                    id: "w", payload: [1], kind: .wait, delay: .zero, notBefore: Date().addingTimeInterval(3600)))
            try await store.schedule(
                ScheduledDelivery(
                    id: "past", payload: [2], kind: .wait, delay: .zero, notBefore: Date().addingTimeInterval(-5)))
            #expect(try await store.claimDue(limit: 10, lease: .seconds(120)).map(\.id) == ["past"])
            #expect(try await store.depth() == 2)
        }
    }

    /// Waits are counted by what they wait for, with the oldest one's start, from scheduling
    /// until they are acknowledged (re-published); retries are not counted.
    @Test func waitsAreCountedByWhatTheyWaitForUntilAcknowledged() async throws {
        try await withRedisClient { _, client in
            let store = RedisRetryStore(client: client, stage: "s")
            let since = Date(timeIntervalSince1970: 1_700_000_000)
            func wait(_ id: String, _ on: String, _ startedAt: Date, dueIn seconds: Double) -> ScheduledDelivery {
                ScheduledDelivery(
                    id: id, payload: [1], kind: .wait, delay: .zero, notBefore: Date().addingTimeInterval(seconds),
                    waiting: .init(on: on, since: startedAt))
            }
            #expect(try await store.waiting() == WaitingSummary())
            try await store.schedule(
                wait("a1", "apple:transactionInfo:Production", since.addingTimeInterval(60), dueIn: -1))
            try await store.schedule(wait("a2", "apple:transactionInfo:Production", since, dueIn: 3600))
            try await store.schedule(wait("a2", "apple:transactionInfo:Production", since, dueIn: 3600))
            try await store.schedule(wait("o1", "order", since.addingTimeInterval(120), dueIn: 3600))
            try await store.schedule(ScheduledDelivery(id: "r1", payload: [2], kind: .retry, delay: .zero))
            #expect(
                try await store.waiting()
                    == WaitingSummary(counts: ["apple:transactionInfo:Production": 2, "order": 1], oldestSince: since))

            let due = try await store.claimDue(limit: 10, lease: .seconds(60)).map(\.id).sorted()
            #expect(due == ["a1", "r1"])
            #expect(try await store.waiting().counts["apple:transactionInfo:Production"] == 2, "claimed is still owed")
            try await store.acknowledge(["a1", "r1"])
            try await store.acknowledge(["a1"])
            try await store.acknowledge(["a2"])
            #expect(
                try await store.waiting()
                    == WaitingSummary(counts: ["order": 1], oldestSince: since.addingTimeInterval(120)))
        }
    }
}
