import AppStoreModels
public import Contracts
import Foundation
import Kafka
public import Pipeline
public import Purchases

/// The match stage: indexes orders and ties each verified transaction to a user
/// (``MatchRules``). A transaction with no order yet waits until its window's deadline (a
/// runtime wait, journaled in Kafka, not charged to the retry budget); its order arriving
/// releases it at once by re-publishing it to the verified topic (decisions D9, D19).
///
/// Every matched record is produced with the binding it rests on (`iap.ownership.v1`), in the
/// same produce: the binding's durable copy, from which a Redis that lost its data is rebuilt
/// (decision D35).
public struct MatchHandler: MessageHandler {
    /// Where match reads verified transactions and writes its outcomes and bindings.
    public struct Topics: Sendable {
        public var verified: String
        public var matched: String
        public var unmatched: String
        /// The compacted topic of ownership bindings.
        public var ownership: String

        public init(verified: String, matched: String, unmatched: String, ownership: String) {
            self.verified = verified
            self.matched = matched
            self.unmatched = unmatched
            self.ownership = ownership
        }
    }

    private let rules: MatchRules
    private let topics: Topics
    private let audit: AuditTrail?
    /// What match's waits are counted under (`iap_waiting_records{waiting_for}`).
    static let waitingFor = "order"

    public init(rules: MatchRules, topics: Topics, audit: AuditTrail? = nil) {
        self.rules = rules
        self.topics = topics
        self.audit = audit
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<MatchInput> {
        let input = try EventDecoder.decode(MatchInput.self, from: message.record.value)
        switch input {
        case .order:
            // Orders are replayable (a compacted topic): indexing one again changes nothing.
            return Prepared(input)
        case .verified(let verified):
            return Prepared(input, idempotencyKey: verified.recordKey, audit: verified.auditSubject)
        }
    }

    public func handle(_ work: MatchInput, message: InboundMessage) async throws -> StageOutcome {
        switch work {
        case .order(let order):
            switch try await rules.acceptOrder(order) {
            case .indexed(let released):
                return released.isEmpty
                    ? .skip(reason: "order indexed")
                    : .produce(try released.map { try .event($0, topic: topics.verified, key: $0.partitionKey) })
            case .reject(let rejection):
                return .reject(rejection)
            }
        case .verified(let verified):
            let waitingSince = message.waitingSince.map { Timestamp($0) }
            switch try await rules.match(verified, now: Timestamp(Date()), waitingSince: waitingSince) {
            case .matched(let matched):
                // Also when the binding is not new: a delivery that bound the purchase in Redis
                // and died before its produce left the binding in Redis only.
                let binding = OwnershipBinding(
                    originalTransactionId: matched.transaction.originalTransactionId, userId: matched.userId)
                return .produce(
                    [
                        try .event(binding, topic: topics.ownership, key: binding.partitionKey),
                        try .event(matched, topic: topics.matched, key: matched.partitionKey),
                    ] + (try audit.map { [try $0.record(Self.matchedEntry(matched, audit: $0))] } ?? []))
            case .wait(let since, let deadline):
                // Looked at again at the deadline; the order's arrival releases it earlier.
                return .wait(
                    .init(
                        until: deadline.date, since: since.date, on: Self.waitingFor,
                        reason: "waiting for an order or user since \(since)", releasable: true))
            case .unmatched(let unmatched):
                var records = [try KafkaRecord.event(unmatched, topic: topics.unmatched, key: unmatched.partitionKey)]
                if let audit {
                    records.append(
                        try audit.record(
                            audit.entry(
                                .unmatched, about: verified.auditSubject, reason: unmatched.reason.rawValue,
                                detail: "no order or user since \(unmatched.since); on \(topics.unmatched)")))
                }
                return .produce(records)
            case .reject(let rejection):
                return .reject(rejection)
            }
        }
    }
}

extension MatchHandler {
    /// Who the transaction went to and why, with what the rule noticed (a hint that lost).
    static func matchedEntry(_ matched: MatchedTransaction, audit: AuditTrail) -> AuditEntry {
        var entry = audit.entry(.matched, about: matched.auditSubject)
        entry.matchedBy = matched.matchedBy
        entry.orderId = matched.orderId
        entry.warnings = matched.warnings.isEmpty ? nil : matched.warnings
        if let hinted = matched.verified.hints.userId, hinted != matched.userId {
            entry.detail =
                "the publisher named \(hinted); the purchase belongs to \(matched.userId) by \(matched.matchedBy)"
        }
        return entry
    }
}
