public import Contracts
import Kafka
public import Pipeline
public import Purchases

/// The grant stage: exactly one effective change per (transaction, action). ``GrantRules``
/// decides against the purchase's state; the entitlement events are written first and the
/// state saved only after Kafka acknowledged them, so a crash in between replays into the
/// same events (same `eventId`s) rather than into a state that believes they were sent.
public struct GrantHandler: MessageHandler {
    private let rules: GrantRules
    private let entitlementsTopic: String
    /// Answers `CONSUMPTION_REQUEST`s when `IAP_CONSUMPTION_ANSWER` is on (decision D34).
    private let consumption: ConsumptionStep?

    public init(rules: GrantRules, entitlementsTopic: String, consumption: ConsumptionStep? = nil) {
        self.rules = rules
        self.entitlementsTopic = entitlementsTopic
        self.consumption = consumption
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<MatchedTransaction> {
        let matched = try EventDecoder.decode(MatchedTransaction.self, from: message.record.value)
        return Prepared(matched, idempotencyKey: matched.idempotencyKey)
    }

    public func handle(_ matched: MatchedTransaction, message: InboundMessage) async throws -> StageOutcome {
        if let held = try await consumption?.run(matched, message: message) { return held }
        let decision = try await rules.decide(matched)
        guard !decision.changes.isEmpty else {
            try await rules.commit(decision)
            return .skip(reason: decision.ignored?.description ?? "no effective change")
        }
        let records = try decision.events.map { try KafkaRecord.event($0, topic: entitlementsTopic, key: $0.userId) }
        let rules = self.rules
        return .deliver(records) { try await rules.commit(decision) }
    }
}
