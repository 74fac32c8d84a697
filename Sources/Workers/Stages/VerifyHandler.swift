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
public struct VerifyHandler: MessageHandler {
    private let verifier: TransactionVerifier
    private let verifiedTopic: String
    private let appleMetrics: AppleCallMetrics?

    /// - Parameter appleMetrics: counts Apple's refusals of our configuration (D8's alert).
    public init(verifier: TransactionVerifier, verifiedTopic: String, appleMetrics: AppleCallMetrics? = nil) {
        self.verifier = verifier
        self.verifiedTopic = verifiedTopic
        self.appleMetrics = appleMetrics
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<VerifyRequest> {
        let request = try EventDecoder.decode(VerifyRequest.self, from: message.record.value)
        return Prepared(request, idempotencyKey: request.idempotencyKey)
    }

    public func handle(_ request: VerifyRequest, message: InboundMessage) async throws -> StageOutcome {
        switch try await verifier.verify(request, holding: message.waitMemo.flatMap(GateBooking.init)) {
        case .verified(let transactions):
            return .produce(try transactions.map { try .event($0, topic: verifiedTopic, key: $0.partitionKey) })
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

extension GateSlot {
    /// The runtime wait for this slot: back at the slot, holding its booking, counted under
    /// the call (`apple:<endpoint>:<environment>`) since the record first waited.
    func stageWait(since: Date?, now: Date = Date()) -> StageOutcome.Wait {
        StageOutcome.Wait(
            until: now.addingTimeInterval(delay.seconds), since: since ?? now, on: booking.call.waitingLabel,
            reason: reason, memo: booking.description)
    }
}
