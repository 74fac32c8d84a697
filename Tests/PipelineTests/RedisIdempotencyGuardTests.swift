import Pipeline
import Redis
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct RedisIdempotencyGuardTests {
    @Test func doneIsRespectedAcrossClients() async throws {
        try await withTwoClients { first, second in
            let a = RedisIdempotencyGuard(client: first, stage: "grant")
            let b = RedisIdempotencyGuard(client: second, stage: "grant")
            guard case .acquired(let token) = try await a.begin("2000000001", lockTTL: .seconds(30)) else {
                Issue.record("first begin should take the lock")
                return
            }
            #expect(try await b.begin("2000000001", lockTTL: .seconds(30)) == .busy)
            try await a.complete("2000000001", token: token, retention: .seconds(3600))
            #expect(try await b.begin("2000000001", lockTTL: .seconds(30)) == .alreadyDone)
            #expect(try await a.begin("2000000001", lockTTL: .seconds(30)) == .alreadyDone)
        }
    }

    @Test func abandonLetsAnotherClientTakeIt() async throws {
        try await withTwoClients { first, second in
            let a = RedisIdempotencyGuard(client: first, stage: "verify")
            let b = RedisIdempotencyGuard(client: second, stage: "verify")
            guard case .acquired(let token) = try await a.begin("tx", lockTTL: .seconds(30)) else {
                Issue.record("first begin should take the lock")
                return
            }
            #expect(try await b.begin("tx", lockTTL: .seconds(30)) == .busy)
            try await a.abandon("tx", token: token)
            guard case .acquired(let second) = try await b.begin("tx", lockTTL: .seconds(30)) else {
                Issue.record("after abandon the lock should be free")
                return
            }
            #expect(second != token)
        }
    }

    @Test func namespacesAreIndependentAndOneKeyHoldsLockThenDone() async throws {
        try await withRedisClient { _, client throws in
            let match = RedisIdempotencyGuard(client: client, stage: "match")
            let grant = RedisIdempotencyGuard(client: client, stage: "grant")
            guard case .acquired = try await match.begin("id-1", lockTTL: .seconds(30)) else {
                Issue.record("expected the lock")
                return
            }
            guard case .acquired = try await grant.begin("id-1", lockTTL: .seconds(30)) else {
                Issue.record("another namespace must not be blocked")
                return
            }
            #expect(try await client.send("GET", "iap:idem:{match:id-1}").string?.hasPrefix("L") == true)
            #expect(try await client.send("KEYS", "iap:idem:*").array?.count == 2)
        }
    }

    /// The common path is plain commands, one round trip each: a script per call cost Redis
    /// ~12 µs of server time where `SET` and `GET` cost ~2 (decision D16).
    @Test func beginAndCompleteRunNoScriptAndOneRoundTripEach() async throws {
        // A server of its own: INFO commandstats counts the whole server.
        try await withPrivateRedisClient(poolSize: 1) { _, client throws in
            let store = RedisIdempotencyGuard(client: client, stage: "grant")
            let before = client.traffic.roundTrips
            guard case .acquired(let token) = try await store.begin("2000000009", lockTTL: .seconds(30)) else {
                Issue.record("expected the lock")
                return
            }
            try await store.complete("2000000009", token: token, retention: .seconds(60))
            #expect(client.traffic.roundTrips - before == 2)
            let stats = try await client.send("INFO", "commandstats").string ?? ""
            #expect(!stats.contains("cmdstat_eval"))
            #expect(try await client.send("GET", "iap:idem:{grant:2000000009}").string == "D")
        }
    }

    @Test func completeAfterLockLossStillRecordsDone() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisIdempotencyGuard(client: client, stage: "grant")
            guard case .acquired(let token) = try await store.begin("late", lockTTL: .seconds(30)) else {
                Issue.record("expected the lock")
                return
            }
            _ = try await client.send("DEL", "iap:idem:{grant:late}")
            try await store.complete("late", token: token, retention: .seconds(60))
            #expect(try await store.begin("late", lockTTL: .seconds(30)) == .alreadyDone)
            #expect(try await client.send("PTTL", "iap:idem:{grant:late}").integer ?? 0 > 0)
        }
    }

    /// A wait parks the id: the next delivery takes the lock and learns which wait it replaces;
    /// the one after that (the wait's marker gone) does not.
    @Test func aParkedWaitIsHandedToTheNextDelivery() async throws {
        try await withRedisClient { _, client throws in
            let store = RedisIdempotencyGuard(client: client, stage: "match")
            guard case .acquired(let token) = try await store.begin("t-1", lockTTL: .seconds(30)) else {
                Issue.record("expected the lock")
                return
            }
            try await store.park("t-1", token: token, wait: "iap.verified/0/7/wait", ttl: .seconds(60))
            #expect(try await client.send("GET", "iap:idem:{match:t-1}").string == "Wiap.verified/0/7/wait")
            guard case .acquiredOverWait(let next, let wait) = try await store.begin("t-1", lockTTL: .seconds(30))
            else {
                Issue.record("the next delivery did not take over the wait")
                return
            }
            #expect(wait == "iap.verified/0/7/wait")
            #expect(try await store.begin("t-1", lockTTL: .seconds(30)) == .busy)
            try await store.complete("t-1", token: next, retention: .seconds(60))
            #expect(try await store.begin("t-1", lockTTL: .seconds(30)) == .alreadyDone)
            // A park by a caller whose lock is gone changes nothing.
            try await store.park("t-1", token: token, wait: "x", ttl: .seconds(60))
            #expect(try await client.send("GET", "iap:idem:{match:t-1}").string == "D")
        }
    }
}
