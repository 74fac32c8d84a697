public import AppStore
import AppStoreModels
public import Contracts
public import Foundation

/// Answers `CONSUMPTION_REQUEST`s in grant: reads the purchase's state, plans the answer
/// (``ConsumptionRules``), asks the shared Apple rate gate, sends, and notes the answer in the
/// ``ConsumptionLedger`` so a later attempt of the same request sends nothing.
public struct ConsumptionAnswerer: Sendable {
    private let configuration: ConsumptionConfiguration
    private let states: any EntitlementStateStore
    private let ledger: any ConsumptionLedger
    private let sender: any ConsumptionSender
    private let gate: any AppleCallGate
    private let now: @Sendable () -> Date
    /// The longest wait for a slot of Apple's budget slept with the record in hand; a later
    /// one parks the record (as verify's ``VerifyConfiguration/appleWaitInPlace``).
    private let waitInPlace: Duration

    public init(
        configuration: ConsumptionConfiguration,
        states: any EntitlementStateStore,
        ledger: any ConsumptionLedger,
        sender: any ConsumptionSender,
        gate: any AppleCallGate,
        waitInPlace: Duration = .seconds(2),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.states = states
        self.ledger = ledger
        self.sender = sender
        self.gate = gate
        self.waitInPlace = waitInPlace
        self.now = now
    }

    /// Nil when `matched` did not come in a `CONSUMPTION_REQUEST`. `booking` is the slot the
    /// record waited for (an earlier ``ConsumptionOutcome/wait(_:)``).
    public func answer(_ matched: MatchedTransaction, holding booking: GateBooking? = nil) async throws
        -> ConsumptionOutcome?
    {
        guard let notification = matched.verified.notification, notification.notificationType == .consumptionRequest
        else { return nil }
        let transactionId = matched.transaction.transactionId
        if let earlier = try await self.ledger.answer(transactionId: transactionId) {
            return .skipped(.init(.alreadyAnswered, "answered for notification \(earlier)"))
        }
        let state = try await self.states.state(originalTransactionId: matched.transaction.originalTransactionId)
        let plan = ConsumptionRules.plan(matched, state: state, configuration: self.configuration, now: self.now())
        let (request, id, environment): (ConsumptionRequest, String, AppStoreEnvironment)
        switch plan {
        case .skip(let reason): return .skipped(reason)
        case .send(let planned, let transactionId, let target):
            (request, id, environment) = (planned, transactionId, target)
        }
        let call = AppleCall(.consumption, environment: environment)
        if case .later(let slot) = try await self.gate.admit(call, holding: booking, sleepingUpTo: self.waitInPlace) {
            return .wait(slot)
        }
        do throws(AppleCallFailure) {
            try await self.sender.send(request, transactionId: id, environment: environment)
        } catch {
            switch error.outcome {
            case .retry(let after, let reason):
                if let slot = try await self.gate.heed(after, reason, for: call) { return .wait(slot) }
                return .retry(after: after, reason: reason)
            case .terminal(let reason): return .failed(reason)
            case .switchEnvironment(let other):
                return .failed(TerminalReason(.transactionNotFound, "\(id) is not in \(environment) but \(other)"))
            case .ok:
                return .retry(
                    after: AppleOutcomeClassifier.Delay.invalidBody,
                    reason: RetryReason(.invalidResponseBody, "Apple answered neither 202 nor an error"))
            }
        }
        try await self.ledger.recordAnswer(
            transactionId: id, notificationUUID: notification.notificationUUID, window: self.configuration.answerWindow)
        return .answered(request)
    }
}

/// What became of one consumption request.
public enum ConsumptionOutcome: Hashable, Sendable {
    /// Apple accepted this answer (202).
    case answered(ConsumptionRequest)
    /// Not answered, on purpose.
    case skipped(ConsumptionSkipReason)
    /// Apple answered with a failure worth another attempt: grant retries the record.
    case retry(after: Duration, reason: RetryReason)
    /// The call waits for its slot (the shared budget, Apple's 429): grant parks the record
    /// until then, not charging it an attempt.
    case wait(GateSlot)
    /// Apple refused the answer for good; retrying would send the same refused request.
    case failed(TerminalReason)
}
