import AppStoreModels
import Purchases
import Redis
import TestSupport
import Testing
import WorkerCommon

@Suite(.timeLimit(.minutes(2))) struct RedisAppleCallGateTests {
    /// The server's clock in microseconds, to bound rates without trusting the test's clock.
    func serverMicroseconds(_ client: RedisClient) async throws -> Int64 {
        let parts = try await client.send("TIME").array?.compactMap(\.integer) ?? []
        try #require(parts.count == 2)
        return parts[0] * 1_000_000 + parts[1]
    }

    /// Two replicas drawing from one call: together at most the burst (one second of the
    /// budget) plus the rate times the elapsed time go at once; every other ask is booked a slot
    /// of its own, one interval after the one before, whichever replica asked.
    @Test(arguments: [
        (AppStoreEnvironment.production, 10.0),
        (AppStoreEnvironment.sandbox, 2.0),
    ])
    func twoReplicasShareOneTimeline(environment: AppStoreEnvironment, rate: Double) async throws {
        try await withTwoStateClients { first, second in
            let gates = [first, second].map { RedisAppleCallGate(client: $0, callsPerSecond: 10, sandboxShare: 0.2) }
            #expect(gates[0].sandboxRate == 2)
            let call = AppleCall(.transactionInfo, environment: environment)
            let start = try await serverMicroseconds(first)
            let decisions = try await withThrowingTaskGroup(of: [GateDecision].self) { group in
                for gate in gates {
                    group.addTask {
                        var decisions: [GateDecision] = []
                        for _ in 0..<120 { decisions.append(try await gate.acquire(call, holding: nil)) }
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
            let slots = decisions.compactMap { decision -> Int64? in
                guard case .wait(let slot) = decision else { return nil }
                #expect(slot.cause == .budget && slot.booking.call == call)
                return slot.booking.at
            }.sorted()
            #expect(slots.count == 240 - admitted)
            let interval = Int64(1000 / rate)
            #expect(
                zip(slots, slots.dropFirst()).allSatisfy { $1 - $0 >= interval - 1 },
                "no two waiters share a slot: each wakes at its own time")
            let key = "iap:apple-gate:{transactionInfo:\(environment.rawValue)}"
            #expect(try await first.send("EXISTS", .string(key)).integer == 1)
        }
    }

    /// A record that waited comes back holding its booking: early, it waits for the same slot;
    /// long past it, or holding another call's booking, it books anew.
    @Test func aBookingEarlyStaleOrOfAnotherCallIsNotHonoured() async throws {
        try await withRedisClient { _, client throws in
            // One call a minute: nothing in this test can reach a slot by taking its time.
            let gate = RedisAppleCallGate(client: client, callsPerSecond: 1.0 / 60)
            let call = AppleCall(.transactionInfo, environment: .production)
            #expect(try await gate.acquire(call, holding: nil) == .proceed)
            guard case .wait(let mine) = try await gate.acquire(call, holding: nil),
                case .wait(let next) = try await gate.acquire(call, holding: nil)
            else {
                Issue.record("the budget was not spent")
                return
            }
            #expect(next.booking.at - mine.booking.at == 60_000)
            guard case .wait(let again) = try await gate.acquire(call, holding: mine.booking) else {
                Issue.record("an early booking went through")
                return
            }
            #expect(again.booking == mine.booking, "early: the same slot, not a new one")
            let other = GateBooking(AppleCall(.transactionInfo, environment: .sandbox), at: mine.booking.at - 1_000)
            guard case .wait(let afterOther) = try await gate.acquire(call, holding: other) else {
                Issue.record("another call's booking went through")
                return
            }
            #expect(afterOther.booking.at == next.booking.at + 60_000, "it booked the next slot")
            let stale = GateBooking(call, at: mine.booking.at - GateTimeline.defaultLateness - 120_000)
            guard case .wait(let rebooked) = try await gate.acquire(call, holding: stale) else {
                Issue.record("a stale booking went through on a spent budget")
                return
            }
            #expect(rebooked.booking.at == afterOther.booking.at + 60_000)
        }
    }

    /// At its time, a booking lets its call through without taking a second place: the next
    /// caller's slot is the one after the slots already booked. A lateness of two minutes: a
    /// loaded machine woke this test more than the default 5 s after its slot, and then the
    /// booking is rightly stale (the test above holds that case).
    @Test func aBookingGoesThroughAtItsTime() async throws {
        try await withRedisClient { _, client throws in
            let gate = RedisAppleCallGate(client: client, callsPerSecond: 1.0 / 3, lateness: 120_000)
            let call = AppleCall(.transactionInfo, environment: .production)
            #expect(try await gate.acquire(call, holding: nil) == .proceed)
            // Spend the budget until the gate makes us wait: a CI machine once stalled this test
            // between two calls for longer than the interval, and the budget had rightly refilled.
            var booked: GateSlot?
            for _ in 0..<10 where booked == nil {
                if case .wait(let wait) = try await gate.acquire(call, holding: nil) { booked = wait }
            }
            guard let mine = booked else {
                Issue.record("the budget was not spent")
                return
            }
            try await Task.sleep(for: mine.delay + .milliseconds(5))
            #expect(try await gate.acquire(call, holding: mine.booking) == .proceed)
        }
    }

    @Test func endpointsAndEnvironmentsHaveSeparateTimelines() async throws {
        try await withRedisClient { _, client throws in
            // One call per 100 s: a slow machine can never free the budget between two calls.
            let gate = RedisAppleCallGate(client: client, callsPerSecond: 0.01, sandboxShare: 0.1)
            let production = AppleCall(.transactionInfo, environment: .production)
            #expect(try await gate.acquire(production, holding: nil) == .proceed)
            #expect(try await gate.acquire(production, holding: nil) != .proceed)
            #expect(
                try await gate.acquire(AppleCall(.verifyReceipt, environment: .production), holding: nil) == .proceed)
            let sandbox = AppleCall(.transactionInfo, environment: .sandbox)
            #expect(try await gate.acquire(sandbox, holding: nil) == .proceed)
            guard case .wait(let slot) = try await gate.acquire(sandbox, holding: nil) else {
                Issue.record("the sandbox budget should be spent")
                return
            }
            #expect(slot.delay > .seconds(100))
        }
    }

    /// One replica's 429 pauses the endpoint for all, whether the budget is on or off; another
    /// endpoint or environment is not paused, and a shorter later pause does not cut it short.
    /// The waiters come back after the pause spread out: at the rate with a budget, at random
    /// over up to as long as the pause without one.
    @Test(arguments: [10.0, 0]) func applesRetryAfterPausesEveryReplica(callsPerSecond: Double) async throws {
        try await withTwoStateClients { first, second in
            let told = RedisAppleCallGate(client: first, callsPerSecond: callsPerSecond)
            let other = RedisAppleCallGate(client: second, callsPerSecond: callsPerSecond)
            let call = AppleCall(.transactionInfo, environment: .production)
            #expect(try await other.acquire(call, holding: nil) == .proceed)

            // Ten minutes: however slow the machine, every ask below meets the pause.
            let caller = try await told.backOff(call, for: .seconds(600))
            _ = try await told.backOff(call, for: .seconds(2))
            #expect(caller.cause == .applePause)
            var slots: [Int64] = []
            for _ in 0..<30 {
                guard case .wait(let slot) = try await other.acquire(call, holding: nil) else {
                    Issue.record("the other replica was not paused")
                    return
                }
                #expect(slot.cause == .applePause)
                #expect(slot.delay > .seconds(500) && slot.delay <= .seconds(611))
                slots.append(slot.booking.at)
            }
            #expect(Set(slots).count == slots.count || Set(slots).count > 20, "the waiters do not all wake at once")
            if callsPerSecond > 0 {
                #expect(zip(slots, slots.dropFirst()).allSatisfy { $1 - $0 == 100 }, "at the rate, in order")
            }
            #expect(
                try await other.acquire(AppleCall(.verifyReceipt, environment: .production), holding: nil) == .proceed)
            #expect(
                try await other.acquire(AppleCall(.transactionInfo, environment: .sandbox), holding: nil) == .proceed)
        }
    }

    @Test func rateZeroIsOffAndAlwaysProceeds() async throws {
        try await withRedisClient { _, client throws in
            let gate = RedisAppleCallGate(client: client, callsPerSecond: 0)
            #expect(!gate.isEnabled)
            for environment in [AppStoreEnvironment.production, .sandbox] {
                for _ in 0..<200 {
                    #expect(
                        try await gate.acquire(AppleCall(.transactionInfo, environment: environment), holding: nil)
                            == .proceed)
                }
            }
            #expect(try await client.send("DBSIZE").integer == 0)
        }
    }

    /// Apple's own limit of an endpoint caps the budget: a setting above it (100/s here) never
    /// books Extend Renewal Dates for All Active Subscribers faster than Apple's 1 a second, nor
    /// Set App Account Token faster than its 20, nor Get Transaction Info faster than its 50.
    /// Read from the spacing of two slots booked one after the other, which the clock does not
    /// move (a loaded machine refills a burst between calls, and then the calls just proceed).
    @Test func anEndpointsOwnLimitCapsTheBudget() async throws {
        try await withRedisClient { _, client throws in
            let gate = RedisAppleCallGate(client: client, callsPerSecond: 100)
            func spacing(_ endpoint: AppleCall.Endpoint) async throws -> Int64? {
                var previous: GateSlot?
                for _ in 0..<500 {
                    guard
                        case .wait(let slot) = try await gate.acquire(
                            AppleCall(endpoint, environment: .production), holding: nil)
                    else {
                        previous = nil
                        continue
                    }
                    if let previous { return slot.booking.at - previous.booking.at }
                    previous = slot
                }
                return nil
            }
            #expect(try await spacing(.massExtension) == 1_000)
            #expect(try await spacing(.setAppAccountToken) == 50)
            #expect(try await spacing(.transactionInfo) == 20)
        }
    }
}
