/// The arithmetic of one gated call (an endpoint in an environment), shared by
/// ``InMemoryAppleCallGate`` and mirrored line for line by the shared gate's Redis script.
///
/// A GCRA ("generic cell rate algorithm") timeline: ``nextFree`` is when the budget is free
/// again, every admitted or booked call moves it one ``Rules/interval`` on, and a call is
/// admitted at once while `nextFree` is within one second's burst (``Rules/burst``) of now. A
/// call that is not admitted is **booked** the slot the timeline reached, instead of being told
/// "try again in a moment": thousands of waiting records then hold thousands of distinct slots,
/// one interval apart, in the order they asked, and each comes back at its own time.
///
/// Apple's 429 pauses the timeline until its `Retry-After` (``pausedUntil``). Slots booked for
/// the pause start at its end and are spaced at the full rate, with no burst: Apple just asked
/// us to slow down.
public struct GateTimeline: Sendable, Hashable {
    /// The budget's shape. Times are milliseconds on the gate's clock.
    public struct Rules: Sendable, Hashable {
        /// Milliseconds per call; 0 when there is no budget (only Apple's pauses hold calls).
        public var interval: Double
        /// How far ahead of now `nextFree` may be and a call still go at once: a burst.
        public var burst: Double
        /// How long after its time a booking still lets its call through. A record that comes
        /// back later than this (its worker was down, its topic lagged) books a new slot, so
        /// bookings that piled up during an outage cannot all go out at once.
        public var lateness: Int64

        /// The rules for `callsPerSecond` (0: no budget): a burst of one second's calls, at
        /// least one.
        public init(callsPerSecond: Double, lateness: Int64 = GateTimeline.defaultLateness) {
            guard callsPerSecond > 0 else {
                self.init(interval: 0, burst: 0, lateness: lateness)
                return
            }
            let interval = 1000 / callsPerSecond
            self.init(
                interval: interval, burst: max(0, (callsPerSecond.rounded(.down) - 1)) * interval, lateness: lateness)
        }

        public init(interval: Double, burst: Double, lateness: Int64) {
            self.interval = interval
            self.burst = burst
            self.lateness = lateness
        }
    }

    /// See ``Rules/lateness``.
    public static let defaultLateness: Int64 = 5_000

    /// What one ask came to.
    public enum Answer: Sendable, Hashable {
        case proceed
        /// Wait until `slot` (ms on the gate's clock); the slot is the caller's.
        case wait(slot: Int64, paused: Bool)
    }

    /// When the budget is next free (ms); 0 for never used.
    public var nextFree: Double = 0
    /// Until when Apple asked us to hold back (ms); 0 for never.
    public var pausedUntil: Int64 = 0

    public init(nextFree: Double = 0, pausedUntil: Int64 = 0) {
        self.nextFree = nextFree
        self.pausedUntil = pausedUntil
    }

    /// A call asks at `now`, holding the slot `booked` (nil for none).
    public mutating func ask(now: Int64, booked: Int64?, rules: Rules) -> Answer {
        let paused = pausedUntil > now
        if let booked, !paused {
            if booked > now {
                // Early (a wait restored after Redis lost its data, a skewed clock): the slot is
                // still the caller's, and later bookings go after it.
                if rules.interval > 0 { nextFree = max(nextFree, Double(booked) + rules.interval) }
                return .wait(slot: booked, paused: false)
            }
            if now - booked <= rules.lateness { return .proceed }
        }
        return book(now: now, rules: rules)
    }

    /// Apple answered 429: hold every call back until `until` (a shorter pause never cuts a
    /// longer one short), and book the caller's slot after it.
    public mutating func pause(until: Int64, now: Int64, rules: Rules) -> Answer {
        pausedUntil = max(pausedUntil, until)
        return book(now: now, rules: rules)
    }

    /// With no budget there is no rate to space the slots of a pause by, so each caller's slot
    /// is moved to a random point of up to as long as it waited (at most 10 s) after the pause:
    /// the waiters come back spread out, not all in the millisecond the pause ends.
    public static func spreadWithoutBudget(
        slot: Int64, now: Int64, using generator: inout some RandomNumberGenerator
    ) -> Int64 {
        slot + Int64.random(in: 0...min(max(slot - now, 0), 10_000), using: &generator)
    }

    private mutating func book(now: Int64, rules: Rules) -> Answer {
        let paused = pausedUntil > now
        guard rules.interval > 0 else {
            return paused ? .wait(slot: pausedUntil, paused: true) : .proceed
        }
        let start = max(nextFree, Double(max(now, pausedUntil)))
        if !paused && start - rules.burst <= Double(now) {
            nextFree = start + rules.interval
            return .proceed
        }
        nextFree = start + rules.interval
        let slot = paused ? start : max(start - rules.burst, Double(now))
        return .wait(slot: Int64(slot.rounded(.up)), paused: paused)
    }
}
