import Redis
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct RateLimiterTests {
    @Test func twoClientsShareOneBudget() async throws {
        try await withTwoClients { first, second in
            let rate = 10.0
            let burst = 5
            let limiters = [first, second].map {
                RateLimiter(client: $0, name: "apple", permitsPerSecond: rate, burst: burst)
            }
            let start = try await serverMicroseconds(first)
            let decisions = try await withThrowingTaskGroup(of: [RateLimitDecision].self) { group in
                for limiter in limiters {
                    group.addTask {
                        var decisions: [RateLimitDecision] = []
                        for _ in 0..<150 { decisions.append(try await limiter.tryAcquire("app-1")) }
                        return decisions
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let end = try await serverMicroseconds(first)
            let admitted = decisions.filter { $0 == .admitted }.count
            let elapsedSeconds = Double(end - start) / 1_000_000
            #expect(admitted >= burst)
            #expect(Double(admitted) <= Double(burst) + (rate * elapsedSeconds).rounded(.up))
            for case .retry(let after) in decisions {
                #expect(after > .zero && after <= .milliseconds(100))
            }
        }
    }

    @Test func keysHaveSeparateBuckets() async throws {
        try await withRedisClient { _, client throws in
            let limiter = RateLimiter(client: client, name: "apple", permitsPerSecond: 0.001, burst: 1)
            #expect(try await limiter.tryAcquire("a") == .admitted)
            #expect(try await limiter.tryAcquire("a") != .admitted)
            #expect(try await limiter.tryAcquire("b") == .admitted)
        }
    }

    @Test func acquireWaitsForRefills() async throws {
        try await withRedisClient { _, client throws in
            let rate = 5.0
            let limiter = RateLimiter(client: client, name: "refill", permitsPerSecond: rate, burst: 1)
            let start = try await serverMicroseconds(client)
            for _ in 0..<3 { try await limiter.acquire() }
            let end = try await serverMicroseconds(client)
            // One permit from the burst, two more only after two refills of 1/rate each.
            #expect(end - start >= Int64(2 / rate * 1_000_000) - 1000)
        }
    }
}
