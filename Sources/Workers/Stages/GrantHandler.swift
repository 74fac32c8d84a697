public import Contracts
import Kafka
public import Pipeline
public import Purchases

/// The grant stage: exactly one effective change per (transaction, action). ``GrantRules``
/// decides against the purchase's state; the entitlement events are written first and the
/// state saved only after Kafka acknowledged them, so a crash in between replays into the
/// same events (same `eventId`s) rather than into a state that believes they were sent.
///
/// A notification that is a lifecycle signal (``SubscriptionSignals``) also writes its
/// `iap.subscription-event.v1` among the events, whatever grant decided about access (D56).
///
/// The new state is written to the compacted state topic (`iap.entitlement-state.v1`) once the
/// events are acknowledged, also when the change publishes nothing: the state's durable copy,
/// from which a Redis that lost its data is rebuilt (decision D35), never ahead of the events
/// it records (D52).
public struct GrantHandler: MessageHandler {
    private let rules: GrantRules
    private let entitlementsTopic: String
    private let stateTopic: String
    /// Where lifecycle signals go (`iap.subscription-events`, D56); nil when the pipeline file
    /// gives grant no `subscriptionEvents` output.
    private let subscriptionEventsTopic: String?
    /// Answers `CONSUMPTION_REQUEST`s when `IAP_CONSUMPTION_ANSWER` is on (decision D34).
    private let consumption: ConsumptionStep?
    private let audit: AuditTrail?

    public init(
        rules: GrantRules, entitlementsTopic: String, stateTopic: String, subscriptionEventsTopic: String? = nil,
        consumption: ConsumptionStep? = nil, audit: AuditTrail? = nil
    ) {
        self.rules = rules
        self.entitlementsTopic = entitlementsTopic
        self.stateTopic = stateTopic
        self.subscriptionEventsTopic = subscriptionEventsTopic
        self.consumption = consumption
        self.audit = audit
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<MatchedTransaction> {
        let matched = try EventDecoder.decode(MatchedTransaction.self, from: message.record.value)
        return Prepared(matched, idempotencyKey: matched.idempotencyKey, audit: matched.auditSubject)
    }

    public func handle(_ matched: MatchedTransaction, message: InboundMessage) async throws -> StageOutcome {
        if let held = try await consumption?.run(matched, message: message) { return held }
        let decision = try await rules.decide(matched)
        var records = try decision.events.map { try KafkaRecord.event($0, topic: entitlementsTopic, key: $0.userId) }
        if let topic = subscriptionEventsTopic, let signal = SubscriptionSignals.event(for: matched) {
            records.append(try .event(signal, topic: topic, key: signal.userId))
        }
        var state: [KafkaRecord] = []
        if let newState = decision.newState {
            let record = EntitlementStateRecord(state: newState)
            state.append(try .event(record, topic: stateTopic, key: record.partitionKey))
        }
        let noEffect = decision.ignored?.description ?? "no effective change"
        guard !records.isEmpty || !state.isEmpty else { return .skip(reason: noEffect) }
        if let audit {
            var entry = audit.entry(
                decision.events.isEmpty ? .noEffect : .changed, about: matched.auditSubject,
                reason: decision.events.isEmpty ? noEffect : nil)
            entry.effects = decision.events.isEmpty ? nil : decision.events.map(\.action)
            records.append(try audit.record(entry))
        }
        let rules = self.rules
        return .deliver(records, state: state) { try await rules.commit(decision) }
    }
}
