import AppStoreModels
import Basics
public import Foundation

/// An ``AppleCallGate`` for one process: a ``GateTimeline`` per endpoint and environment, on
/// the wall clock (bookings are UNIX milliseconds, as the shared gate's are).
public actor InMemoryAppleCallGate: AppleCallGate {
    private let production: GateTimeline.Rules
    private let sandbox: GateTimeline.Rules
    private var timelines: [AppleCall: GateTimeline] = [:]
    private let now: @Sendable () -> Int64

    /// - Parameters:
    ///   - callsPerSecond: production budget per endpoint (0: none, only Apple's pauses hold
    ///     calls); a burst of one second's calls.
    ///   - sandboxShare: sandbox gets this share of the production budget (Apple: 10 %).
    ///   - now: the clock, UNIX milliseconds.
    public init(
        callsPerSecond: Double = 50, sandboxShare: Double = 0.1,
        now: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    ) {
        self.production = GateTimeline.Rules(callsPerSecond: callsPerSecond)
        self.sandbox = GateTimeline.Rules(
            callsPerSecond: callsPerSecond > 0 ? max(callsPerSecond * sandboxShare, 0.001) : 0)
        self.now = now
    }

    public func acquire(_ call: AppleCall, holding booking: GateBooking?) -> GateDecision {
        let now = now()
        let booked = booking.flatMap { $0.call == call ? $0.at : nil }
        return decision(
            for: call, timelines[call, default: GateTimeline()].ask(now: now, booked: booked, rules: rules(call)),
            now: now)
    }

    public func backOff(_ call: AppleCall, for delay: Duration) -> GateSlot {
        let now = now()
        let until = now + max(1, delay.milliseconds(rounding: .up))
        let answer = timelines[call, default: GateTimeline()].pause(until: until, now: now, rules: rules(call))
        guard case .wait(let slot) = decision(for: call, answer, now: now) else {
            preconditionFailure("a pause books a slot after it")
        }
        return slot
    }

    private func rules(_ call: AppleCall) -> GateTimeline.Rules {
        call.environment == .production ? production : sandbox
    }

    private func decision(for call: AppleCall, _ answer: GateTimeline.Answer, now: Int64) -> GateDecision {
        switch answer {
        case .proceed:
            return .proceed
        case .wait(var slot, let paused):
            if paused && rules(call).interval == 0 {
                var generator = SystemRandomNumberGenerator()
                slot = GateTimeline.spreadWithoutBudget(slot: slot, now: now, using: &generator)
            }
            return .wait(
                GateSlot(
                    delay: .milliseconds(max(0, slot - now)), booking: GateBooking(call, at: slot),
                    cause: paused ? .applePause : .budget))
        }
    }
}
