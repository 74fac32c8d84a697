import AppStore
import Purchases
import Redis
import TestSupport
import Testing
import Workers

@Suite(.timeLimit(.minutes(2))) struct RedisAppleCallGateTests {
    /// The server's clock in microseconds, to bound rates without trusting the test's clock.
    func serverMicroseconds(_ client: RedisClient) async throws -> Int64 {
        let parts = try await client.send("TIME").array?.compactMap(\.integer) ?? []
        try #require(parts.count == 2)
        return parts[0] * 1_000_000 + parts[1]
    }

    /// Two replicas drawing from one call: together at most the burst (one second of the
    /// budget) plus the rate times the elapsed time.
    @Test(arguments: [
        (AppStoreEnvironment.production, 10.0),
        (AppStoreEnvironment.sandbox, 2.0),
    ])
    func twoReplicasShareOneBudget(environment: AppStoreEnvironment, rate: Double) async throws {
        try await withTwoStateClients { first, second in
            let gates = [first, second].map { RedisAppleCallGate(client: $0, callsPerSecond: 10, sandboxShare: 0.2) }
            #expect(gates[0].sandboxRate == 2)
            let call = AppleCall(.transactionInfo, environment: environment)
            let start = try await serverMicroseconds(first)
            let decisions = try await withThrowingTaskGroup(of: [GateDecision].self) { group in
                for gate in gates {
                    group.addTask {
                        var decisions: [GateDecision] = []
                        for _ in 0..<120 { decisions.append(try await gate.acquire(call)) }
                        return decisions
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let elapsed = Double(try await serverMicroseconds(first) - start) / 1_000_000
            let admitted = decisions.filter { $0 == .proceed }.count
            let burst = Int(rate)
            #expect(admitted >= burst)
            #expect(Double(admitted) <= Double(burst) + (rate * elapsed).rounded(.up))
            for case .wait(let delay) in decisions {
                #expect(delay > .zero && delay <= .seconds(1 / rate))
            }
            let key = "iap:rate:{iap:apple:transactionInfo:\(environment.rawValue)}"
            #expect(try await first.send("EXISTS", .string(key)).integer == 1)
        }
    }

    @Test func endpointsAndEnvironmentsHaveSeparateBuckets() async throws {
        try await withRedisClient { _, client throws in
            // One call per 100 s: a slow machine can never refill a bucket between two calls.
            let gate = RedisAppleCallGate(client: client, callsPerSecond: 0.01, sandboxShare: 0.1)
            let production = AppleCall(.transactionInfo, environment: .production)
            #expect(try await gate.acquire(production) == .proceed)
            #expect(try await gate.acquire(production) != .proceed)
            #expect(try await gate.acquire(AppleCall(.verifyReceipt, environment: .production)) == .proceed)
            #expect(try await gate.acquire(AppleCall(.transactionInfo, environment: .sandbox)) == .proceed)
            guard case .wait(let delay) = try await gate.acquire(AppleCall(.transactionInfo, environment: .sandbox))
            else {
                Issue.record("the sandbox bucket should be empty")
                return
            }
            #expect(delay > .seconds(100))
        }
    }

    /// One replica's 429 pauses the endpoint for all, whether the budget is on or off; another
    /// endpoint or environment is not paused, and a shorter later pause does not cut it short.
    @Test(arguments: [10.0, 0]) func applesRetryAfterPausesEveryReplica(callsPerSecond: Double) async throws {
        try await withTwoStateClients { first, second in
            let told = RedisAppleCallGate(client: first, callsPerSecond: callsPerSecond)
            let other = RedisAppleCallGate(client: second, callsPerSecond: callsPerSecond)
            let call = AppleCall(.transactionInfo, environment: .production)
            #expect(try await other.acquire(call) == .proceed)

            try await told.backOff(call, for: .seconds(60))
            try await told.backOff(call, for: .seconds(2))
            guard case .wait(let delay) = try await other.acquire(call) else {
                Issue.record("the other replica was not paused")
                return
            }
            #expect(delay > .seconds(50) && delay <= .seconds(60))
            #expect(try await other.acquire(AppleCall(.verifyReceipt, environment: .production)) == .proceed)
            #expect(try await other.acquire(AppleCall(.transactionInfo, environment: .sandbox)) == .proceed)
        }
    }

    @Test func rateZeroIsOffAndAlwaysProceeds() async throws {
        try await withRedisClient { _, client throws in
            let gate = RedisAppleCallGate(client: client, callsPerSecond: 0)
            #expect(!gate.isEnabled)
            for environment in [AppStoreEnvironment.production, .sandbox] {
                for _ in 0..<200 {
                    #expect(try await gate.acquire(AppleCall(.transactionInfo, environment: environment)) == .proceed)
                }
            }
            #expect(try await client.send("DBSIZE").integer == 0)
        }
    }
}
