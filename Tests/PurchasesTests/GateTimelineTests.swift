import Purchases
import Testing

/// The gate's arithmetic: a burst, then slots one interval apart in the order asked; Apple's
/// pause moves every slot behind it without a burst; a booking is honoured at its time only.
@Suite struct GateTimelineTests {
    /// 10 calls/s: 100 ms apart, a burst of 10.
    let rules = GateTimeline.Rules(callsPerSecond: 10)
    let now: Int64 = 1_000_000

    @Test func aBurstGoesAtOnceThenEveryCallIsBookedItsOwnSlotInOrder() {
        var timeline = GateTimeline()
        for _ in 0..<10 { #expect(timeline.ask(now: now, booked: nil, rules: rules) == .proceed) }
        let slots = (0..<50).map { _ in timeline.ask(now: now, booked: nil, rules: rules) }
        let times = slots.compactMap { answer -> Int64? in
            guard case .wait(let slot, let paused) = answer, !paused else { return nil }
            return slot
        }
        #expect(times.count == 50)
        #expect(times.first == now + 100, "the burst spent, the next call goes one interval on")
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 100 }, "one interval apart, in order")
    }

    @Test func aBookingGoesAtItsTimeWithoutTakingASecondPlace() {
        var timeline = GateTimeline()
        for _ in 0..<10 { _ = timeline.ask(now: now, booked: nil, rules: rules) }
        guard case .wait(let mine, _) = timeline.ask(now: now, booked: nil, rules: rules) else {
            Issue.record("the burst was not spent")
            return
        }
        guard case .wait(let next, _) = timeline.ask(now: now, booked: nil, rules: rules) else { return }
        // Early: wait again for the same slot, the timeline unchanged.
        #expect(timeline.ask(now: mine - 50, booked: mine, rules: rules) == .wait(slot: mine, paused: false))
        // At its time, and a little late: through.
        #expect(timeline.ask(now: mine, booked: mine, rules: rules) == .proceed)
        #expect(timeline.ask(now: mine + 4_000, booked: mine, rules: rules) == .proceed)
        // The next booking still follows the two taken.
        guard case .wait(let third, _) = timeline.ask(now: now, booked: nil, rules: rules) else { return }
        #expect(third == next + 100)
    }

    @Test func aBookingLongPastItsTimeBooksAnew() {
        var timeline = GateTimeline()
        let stale = now - GateTimeline.defaultLateness - 1
        for _ in 0..<10 { _ = timeline.ask(now: now, booked: nil, rules: rules) }
        guard case .wait(let slot, _) = timeline.ask(now: now, booked: stale, rules: rules) else {
            Issue.record("a stale booking went through on a spent budget")
            return
        }
        #expect(slot >= now)
    }

    @Test func applesPauseMovesEverySlotBehindItAtTheRateWithoutABurst() {
        var timeline = GateTimeline()
        let pauseEnds = now + 30_000
        guard case .wait(let first, let paused) = timeline.pause(until: pauseEnds, now: now, rules: rules) else {
            Issue.record("the caller of a pause was let through")
            return
        }
        #expect(paused && first == pauseEnds)
        var slots = [first]
        for _ in 0..<20 {
            guard case .wait(let slot, true) = timeline.ask(now: now + 1_000, booked: nil, rules: rules) else {
                Issue.record("a call during the pause was not held back")
                return
            }
            slots.append(slot)
        }
        #expect(zip(slots, slots.dropFirst()).allSatisfy { $1 - $0 == 100 })
        // A booking made before the pause, due inside it, is not honoured: it is booked after it.
        guard case .wait(let rebooked, true) = timeline.ask(now: now + 2_000, booked: now + 2_000, rules: rules) else {
            Issue.record("a booking inside Apple's pause went through")
            return
        }
        #expect(rebooked == slots.last! + 100)
        // A shorter pause told later does not cut the longer one short.
        _ = timeline.pause(until: now + 5_000, now: now + 3_000, rules: rules)
        #expect(timeline.pausedUntil == pauseEnds)
    }

    @Test func withoutABudgetOnlyApplesPauseHoldsCalls() {
        let off = GateTimeline.Rules(callsPerSecond: 0)
        var timeline = GateTimeline()
        for _ in 0..<1_000 { #expect(timeline.ask(now: now, booked: nil, rules: off) == .proceed) }
        #expect(timeline.pause(until: now + 2_000, now: now, rules: off) == .wait(slot: now + 2_000, paused: true))
        #expect(timeline.ask(now: now + 1_999, booked: nil, rules: off) == .wait(slot: now + 2_000, paused: true))
        #expect(timeline.ask(now: now + 2_000, booked: nil, rules: off) == .proceed)
        var generator = SystemRandomNumberGenerator()
        let spread = (0..<200).map { _ in
            GateTimeline.spreadWithoutBudget(slot: now + 2_000, now: now, using: &generator)
        }
        #expect(spread.allSatisfy { (now + 2_000)...(now + 4_000) ~= $0 })
        #expect(Set(spread).count > 100, "the waiters of a pause come back spread out")
    }
}
