import AppStoreModels
import Contracts
import Pipeline
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon

@Suite(.timeLimit(.minutes(2))) struct RedisWaitingTransactionStoreTests {
    static let later = StateFixtures.now.advanced(by: .seconds(90))

    @Test func parkingTwiceKeepsTheFirstTimeAndRecord() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisWaitingTransactionStore(client: client)
            let record = StateFixtures.notification()
            #expect(
                try await store.park(record, under: [.appAccountToken(StateFixtures.token)], at: StateFixtures.now)
                    == StateFixtures.now)
            var changed = record
            changed.verifiedAt = Self.later
            #expect(try await store.park(changed, under: [.orderId("o-1")], at: Self.later) == StateFixtures.now)
            // Both keys release the one record, as first parked.
            #expect(try await store.release(.orderId("o-1")) == [record])
            #expect(try await store.release(.appAccountToken(StateFixtures.token)) == [record])
        }
    }

    @Test func releaseReturnsTheRecordsUntilTheyAreForgottenAndKeepsTheirTime() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisWaitingTransactionStore(client: client)
            let key = WaitKey.appAccountToken(StateFixtures.token)
            let first = StateFixtures.purchase("1")
            let second = StateFixtures.purchase("2")
            _ = try await store.park(second, under: [key], at: Self.later)
            _ = try await store.park(first, under: [key, .orderId("o-1")], at: StateFixtures.now)
            #expect(try await store.release(key) == [first, second])
            // Released again (the order's delivery died before its produce): the same records.
            #expect(try await store.release(key) == [first, second])
            #expect(try await store.release(.appAccountToken(StateFixtures.otherToken)) == [])
            // A released record that still finds no user keeps its original window.
            #expect(try await store.park(first, under: [key], at: Self.later) == StateFixtures.now)
            // Matched: gone from the record and from both its indexes.
            try await store.forget(recordKey: first.recordKey, under: [key, .orderId("o-1")])
            #expect(try await store.release(key) == [second])
            #expect(try await store.release(.orderId("o-1")) == [])
            #expect(try await client.send("EXISTS", "iap:wait:index:{order:o-1}").integer == 0)
        }
    }

    @Test func forgetDropsTheRecordAndItsPlaceInTheIndex() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisWaitingTransactionStore(client: client)
            let kept = StateFixtures.purchase("1")
            let matched = StateFixtures.purchase("2")
            for record in [kept, matched] {
                _ = try await store.park(record, under: [.orderId("o-1")], at: StateFixtures.now)
            }
            try await store.forget(recordKey: matched.recordKey, under: [.orderId("o-1")])
            try await store.forget(recordKey: "never-parked", under: [.orderId("o-2")])
            #expect(try await client.send("EXISTS", .string("iap:wait:record:{\(matched.recordKey)}")).integer == 0)
            #expect(
                try await client.send("SMEMBERS", "iap:wait:index:{order:o-1}").array?.compactMap(\.string) == [
                    kept.recordKey
                ])
            #expect(try await store.release(.orderId("o-1")) == [kept])
            // Parked again after being forgotten: a new window.
            #expect(try await store.park(matched, under: [], at: Self.later) == Self.later)
        }
    }

    /// The release's read of the records fails (a record's key holds the wrong type for a
    /// while): the order is tried again, and its next release finds every record still there.
    /// When a release took the index first, the retry found it empty and the transactions
    /// waited out their whole window for an order already indexed (D70).
    @Test func aReleaseThatFailedReturnsTheRecordsWhenTriedAgain() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisWaitingTransactionStore(client: client)
            let records = [StateFixtures.purchase("1"), StateFixtures.purchase("2")]
            for record in records {
                _ = try await store.park(record, under: [.orderId("o-1")], at: StateFixtures.now)
            }
            let broken = "iap:wait:record:{\(records[0].recordKey)}"
            _ = try await client.send("RENAME", .string(broken), "aside")
            _ = try await client.send("SET", .string(broken), "not a hash")
            await #expect(throws: RedisError.self) { try await store.release(.orderId("o-1")) }
            _ = try await client.send("DEL", .string(broken))
            _ = try await client.send("RENAME", "aside", .string(broken))
            #expect(try await store.release(.orderId("o-1")) == records)
        }
    }

    @Test func recordsAndIndexesExpire() async throws {
        try await withRedisClient { _, client throws in
            let record = StateFixtures.purchase("1")
            let recordKey = "iap:wait:record:{\(record.recordKey)}"
            let indexKey = "iap:wait:index:{order:o-1}"
            _ = try await RedisWaitingTransactionStore(client: client).park(
                record, under: [.orderId("o-1")], at: StateFixtures.now)
            #expect(isFresh(try await pttl(client, recordKey), ttl: .seconds(8 * 86_400)))
            #expect(isFresh(try await pttl(client, indexKey), ttl: .seconds(8 * 86_400)))

            let store = RedisWaitingTransactionStore(
                client: client, keys: try Keyspace(prefix: "t:"), retention: .seconds(120))
            let other = StateFixtures.purchase("2")
            _ = try await store.park(other, under: [.orderId("o-1")], at: StateFixtures.now)
            #expect(isFresh(try await pttl(client, "t:wait:record:{\(other.recordKey)}"), ttl: .seconds(120)))
            #expect(isFresh(try await pttl(client, "t:wait:index:{order:o-1}"), ttl: .seconds(120)))
            // The record's expiry runs from its first park; the index's from the latest.
            _ = try await client.send("PEXPIRE", .string("t:wait:record:{\(other.recordKey)}"), 30_000)
            _ = try await client.send("PEXPIRE", "t:wait:index:{order:o-1}", 30_000)
            _ = try await store.park(other, under: [.orderId("o-1")], at: Self.later)
            #expect(try await pttl(client, "t:wait:record:{\(other.recordKey)}") <= 30_000)
            #expect(isFresh(try await pttl(client, "t:wait:index:{order:o-1}"), ttl: .seconds(120)))
        }
    }

    @Test func undecodableRecordThrowsAStateDecodingError() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisWaitingTransactionStore(client: client)
            let record = StateFixtures.purchase("1")
            _ = try await store.park(record, under: [.orderId("o-1")], at: StateFixtures.now)
            _ = try await client.send("HSET", .string("iap:wait:record:{\(record.recordKey)}"), "transaction", "[]")
            await #expect(throws: StateDecodingError.self) { try await store.release(.orderId("o-1")) }

            let corrupt = StateFixtures.purchase("x")
            _ = try await client.send(
                "HSET", .string("iap:wait:record:{\(corrupt.recordKey)}"), "since", "yesterday", "transaction", "{}")
            await #expect(throws: StateDecodingError.self) {
                try await store.park(corrupt, under: [], at: StateFixtures.now)
            }
        }
    }

    /// The same sequence of park/release/forget on the in-memory store and on Redis gives
    /// the same answers.
    @Test func behavesLikeTheInMemoryStore() async throws {
        try await withRedisClient { _, client throws in
            let redis = RedisWaitingTransactionStore(client: client)
            let memory = InMemoryWaitingTransactionStore()
            let token = WaitKey.appAccountToken(StateFixtures.token)
            let order = WaitKey.orderId("o-1")
            let a = StateFixtures.notification("1", uuid: "n-a")
            let b = StateFixtures.purchase("2")
            enum Step {
                case park(VerifiedTransaction, [WaitKey], Int64)
                case release(WaitKey)
                case forget(String, [WaitKey])
            }
            let steps: [Step] = [
                .park(a, [token], 0), .park(b, [token, order], 1), .park(a, [order], 2), .release(order),
                .release(order), .park(b, [order], 3), .forget(a.recordKey, [token, order]), .release(token),
                .release(order), .park(a, [token], 4), .release(token), .forget(b.recordKey, [order]), .release(token),
                .release(order),
            ]
            for (number, step) in steps.enumerated() {
                switch step {
                case .park(let record, let keys, let seconds):
                    let now = StateFixtures.now.advanced(by: .seconds(seconds))
                    let expected = await memory.park(record, under: keys, at: now)
                    #expect(try await redis.park(record, under: keys, at: now) == expected, "step \(number)")
                case .release(let key):
                    // The protocol promises no order (Redis returns first parked first).
                    let expected = Set(await memory.release(key))
                    #expect(Set(try await redis.release(key)) == expected, "step \(number)")
                case .forget(let recordKey, let keys):
                    await memory.forget(recordKey: recordKey, under: keys)
                    try await redis.forget(recordKey: recordKey, under: keys)
                }
            }
        }
    }

    /// Match's rules on the Redis stores: a notification waits for its order, the order
    /// releases it, and the released record then matches by token.
    @Test func matchRulesReleaseAWaitingTransactionWhenItsOrderArrives() async throws {
        try await withRedisClient { _, client throws in
            let rules = MatchRules(
                orders: RedisOrderIndex(client: client),
                ownership: RedisOwnershipStore(client: client),
                waiting: RedisWaitingTransactionStore(client: client)
            )
            var waiting = StateFixtures.notification()
            waiting.transaction.productId = "pro_monthly"
            guard case .wait(let since, _) = try await rules.match(waiting, now: StateFixtures.now) else {
                Issue.record("a notification without an order should wait")
                return
            }
            #expect(since == StateFixtures.now)
            #expect(try await rules.acceptOrder(StateFixtures.order()) == .indexed(released: [waiting]))
            // Delivered again before the released copy was matched: released again (D70).
            #expect(try await rules.acceptOrder(StateFixtures.order()) == .indexed(released: [waiting]))
            guard case .matched(let matched) = try await rules.match(waiting, now: Self.later) else {
                Issue.record("the released record should match its order")
                return
            }
            #expect(matched.userId == "u-1")
            #expect(matched.orderId == "o-1")
            #expect(matched.matchedBy == .appAccountToken)
            #expect(try await client.send("GET", "iap:owner:{2000000000000001}").string == "u-1")
            #expect(try await client.send("GET", "iap:order:{o-1}:claim").string == "2000000000000001")
            #expect(try await client.send("EXISTS", .string("iap:wait:record:{\(waiting.recordKey)}")).integer == 0)
        }
    }
}
