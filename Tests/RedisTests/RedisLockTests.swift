import Redis
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct RedisLockTests {
    @Test func onlyOneOfTwoClientsGetsTheLock() async throws {
        try await withTwoClients { first, second in
            let a = RedisLock(client: first)
            let b = RedisLock(client: second)
            let token = try #require(try await a.acquire("lock:r1", ttl: .seconds(30)))
            #expect(try await b.acquire("lock:r1", ttl: .seconds(30)) == nil)
            #expect(try await a.release("lock:r1", token: token))
            let other = try #require(try await b.acquire("lock:r1", ttl: .seconds(30)))
            #expect(other != token)
        }
    }

    @Test func nonOwnerCannotReleaseOrExtend() async throws {
        try await withTwoClients { first, second in
            let owner = RedisLock(client: first)
            let intruder = RedisLock(client: second)
            let token = try #require(try await owner.acquire("lock:r2", ttl: .seconds(30)))
            let forged = LockToken(value: "not-the-token")
            #expect(try await intruder.release("lock:r2", token: forged) == false)
            #expect(try await intruder.extend("lock:r2", token: forged, ttl: .seconds(60)) == false)
            #expect(try await first.send("GET", "lock:r2").string == token.value)
        }
    }

    @Test func extendResetsTheTTL() async throws {
        try await withRedisClient { _, client throws in
            let lock = RedisLock(client: client)
            // TTLs of minutes: a loaded CI machine once stalled this test past a 5 s lock.
            let token = try #require(try await lock.acquire("lock:r3", ttl: .seconds(60)))
            #expect(try await client.send("PTTL", "lock:r3").integer ?? 0 <= 60_000)
            #expect(try await lock.extend("lock:r3", token: token, ttl: .seconds(600)))
            #expect(try await client.send("PTTL", "lock:r3").integer ?? 0 > 300_000)
            #expect(try await lock.release("lock:r3", token: token))
            #expect(try await lock.extend("lock:r3", token: token, ttl: .seconds(600)) == false)
        }
    }

    @Test func tokensAreFreshPerAcquisition() async throws {
        try await withRedisClient { _, client throws in
            let lock = RedisLock(client: client)
            var tokens: Set<LockToken> = []
            for index in 0..<20 {
                let token = try #require(try await lock.acquire("lock:fresh:\(index)", ttl: .seconds(10)))
                #expect(token.value.count == 48)  // 32 hex digits of per-process randomness, 16 of counter
                tokens.insert(token)
            }
            #expect(tokens.count == 20)
        }
    }
}
