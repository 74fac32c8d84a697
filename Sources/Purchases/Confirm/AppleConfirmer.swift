public import AppStore
public import Contracts
import Foundation

/// Makes the calls an entitlement change owes Apple (``ConfirmRules/plan(_:configuration:)``)
/// through the shared rate gate, in order. Every call is idempotent at Apple (a transaction finished twice stays
/// finished; a token set twice is the same token), so a record retried after a partial success
/// simply makes its calls again.
public struct AppleConfirmer: Sendable {
    private let sender: any ConfirmationSender
    private let gate: any AppleCallGate
    /// The longest wait for a slot slept with the record in hand; a later one parks it.
    private let waitInPlace: Duration

    public init(sender: any ConfirmationSender, gate: any AppleCallGate, waitInPlace: Duration = .seconds(2)) {
        self.sender = sender
        self.gate = gate
        self.waitInPlace = waitInPlace
    }

    /// `booking`: the slot the record waited for (an earlier ``ConfirmOutcome/wait(_:)``).
    public func confirm(_ actions: [ConfirmAction], holding booking: GateBooking? = nil) async throws
        -> ConfirmOutcome
    {
        var done: [ConfirmAction] = []
        var refused: [ConfirmOutcome.Refusal] = []
        for action in actions {
            let call = action.call
            let held = booking.flatMap { $0.call == call ? $0 : nil }
            if case .later(let slot) = try await gate.admit(call, holding: held, sleepingUpTo: waitInPlace) {
                return .wait(slot)
            }
            do throws(AppleCallFailure) {
                try await sender.send(action)
                done.append(action)
            } catch {
                switch error.outcome {
                case .retry(let after, let reason):
                    if let slot = try await gate.heed(after, reason, for: call) { return .wait(slot) }
                    return .retry(after: after, reason: reason)
                case .terminal(let reason):
                    refused.append(.init(action: action, reason: reason))
                case .switchEnvironment(let other):
                    refused.append(
                        .init(
                            action: action,
                            reason: TerminalReason(.transactionNotFound, "Apple says it belongs to \(other)")))
                case .ok:
                    return .retry(
                        after: AppleOutcomeClassifier.Delay.invalidBody,
                        reason: RetryReason(.invalidResponseBody, "Apple answered neither 200 nor an error"))
                }
            }
        }
        return .done(done, refused: refused)
    }
}

/// What became of a change's calls.
public enum ConfirmOutcome: Hashable, Sendable {
    /// A call Apple refused for good: sending it again would be refused again.
    public struct Refusal: Hashable, Sendable {
        public var action: ConfirmAction
        public var reason: TerminalReason
    }

    /// Every call made: Apple accepted `done` and refused `refused` (none owed: both empty).
    case done([ConfirmAction], refused: [Refusal])
    /// Apple answered with a failure worth another attempt: the stage retries the record.
    case retry(after: Duration, reason: RetryReason)
    /// A call waits for its slot (the shared budget, Apple's 429): the record is parked.
    case wait(GateSlot)
}
