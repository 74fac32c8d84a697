import AppStore
import Basics
public import Contracts
import Foundation
import Kafka
public import Pipeline
public import Purchases
public import WorkerCommon

/// The verify stage: Apple's word on each request, through ``TransactionVerifier`` (local JWS
/// checks, Apple lookups behind the shared rate limiter and the verified-transaction cache).
/// Retry versus reject follows Apple's classification; a retry never comes before Apple's
/// Retry-After. A request that must wait for its Apple call slot (the shared budget, Apple's
/// 429) waits for it as a runtime wait that keeps the booking, not as a retry (decision D36).
/// Each app has its verifier (its bundle, key, environment policy and gate; D57); a request of
/// an app the deployment does not serve is `unknown_app`.
public struct VerifyHandler: MessageHandler {
    private let verifiers: PerApp<TransactionVerifier>
    private let verifiedTopic: String
    private let appleMetrics: AppleCallMetrics?
    private let audit: AuditTrail?

    /// - Parameter appleMetrics: counts Apple's refusals of our configuration (D8's alert).
    public init(
        verifiers: PerApp<TransactionVerifier>, verifiedTopic: String, appleMetrics: AppleCallMetrics? = nil,
        audit: AuditTrail? = nil
    ) {
        self.verifiers = verifiers
        self.verifiedTopic = verifiedTopic
        self.appleMetrics = appleMetrics
        self.audit = audit
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<VerifyRequest> {
        let request = try EventDecoder.decode(VerifyRequest.self, from: message.record.value)
        return Prepared(request, idempotencyKey: request.idempotencyKey, audit: request.auditSubject)
    }

    public func handle(_ request: VerifyRequest, message: InboundMessage) async throws -> StageOutcome {
        guard let verifier = verifiers[request.bundleId] else { return .reject(verifiers.unknownApp(request.bundleId)) }
        switch try await verifier.verify(request, holding: message.waitMemo.flatMap(GateBooking.init)) {
        case .verified(let transactions):
            var records = try transactions.map { try KafkaRecord.event($0, topic: verifiedTopic, key: $0.partitionKey) }
            if let audit { records.append(try audit.record(verifiedEntry(request, transactions, audit: audit))) }
            return .produce(records)
        case .retry(let after, let reason):
            appleMetrics?.countIfConfigurationError(reason)
            return .retry(after: after, reason: reason.description)
        case .wait(let slot):
            return .wait(slot.stageWait(since: message.waitingSince))
        case .reject(let rejection):
            return .reject(rejection)
        case .skip(let reason):
            return .skip(reason: reason.description)
        }
    }
}

extension VerifyHandler {
    /// One entry for the request: every transaction Apple returned for it, so a status knows
    /// when each has reached its end (D51).
    func verifiedEntry(_ request: VerifyRequest, _ transactions: [VerifiedTransaction], audit: AuditTrail)
        -> AuditEntry
    {
        var subject = request.auditSubject
        if subject.bundleId == nil { subject.bundleId = transactions.first?.transaction.bundleId }
        var entry = audit.entry(.verified, about: subject)
        entry.transactions = transactions.map(\.transaction.transactionId)
        entry.environment = transactions.first?.transaction.environment
        if transactions.count == 1, let only = transactions.first {
            entry.transactionId = only.transaction.transactionId
            entry.originalTransactionId = only.transaction.originalTransactionId
        }
        return entry
    }
}

extension GateSlot {
    /// The runtime wait for this slot: back at the slot, holding its booking, counted under
    /// the call (`apple:<endpoint>:<environment>`) since the record first waited.
    func stageWait(since: Date?, now: Date = Date()) -> StageOutcome.Wait {
        StageOutcome.Wait(
            until: now.addingTimeInterval(delay.seconds), since: since ?? now, on: booking.call.waitingLabel,
            reason: reason, memo: booking.description)
    }
}
