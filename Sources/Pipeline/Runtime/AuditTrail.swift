public import AppStoreModels
public import Contracts
public import Foundation
public import Kafka

/// Where one stage appends what it decided (`iap.audit`, decision D51). The stages write their
/// own decisions (accepted, verified, matched, changed) in the produce of their outputs; the
/// runtime writes those it makes (a rejection, a skip, a duplicate, a dead letter) with the
/// record that makes them durable. Either way the entry is acknowledged before the input's
/// offset can be committed, so every decision that counts is in the trail, some twice after a
/// crash (readers keep one per ``AuditEntry/auditId``).
public struct AuditTrail: Sendable {
    public var topic: String
    public var stage: String

    public init(topic: String, stage: String) {
        self.topic = topic
        self.stage = stage
    }

    /// An entry of this stage about `subject`, decided now. Its ``AuditEntry/auditId`` is given
    /// by ``record(_:)`` once the stage added its fields: computed here too, it was computed
    /// twice for every record every stage handles.
    public func entry(
        _ decision: AuditDecision, about subject: AuditSubject, userId: String? = nil, reason: String? = nil,
        detail: String? = nil, at: Timestamp = Timestamp(Date())
    ) -> AuditEntry {
        AuditEntry(
            auditId: "", stage: stage, decision: decision, at: at, subject: subject, userId: userId, reason: reason,
            detail: detail)
    }

    /// `entry` as a record of the trail, under its partition key, its ``AuditEntry/auditId``
    /// computed from its final fields.
    public func record(_ entry: AuditEntry) throws -> KafkaRecord {
        let entry = entry.identified()
        return KafkaRecord(topic: topic, key: Array(entry.partitionKey.utf8), value: try EventEncoder.encode(entry))
    }
}
