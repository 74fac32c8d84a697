public import Contracts
import Customers
import Kafka
public import Pipeline
public import WorkerCommon

/// The customer state stage (D49, D51), on two inputs:
///
/// - `iap.entitlements`: folds each change into its customer's ``CustomerRecord`` and publishes
///   the new record to the compacted `iap.customers` (keyed `<bundleId>|<userId>`) before saving
///   it in Redis, the read copy the API serves. A crash in between folds the same change again
///   into the same record: the fold is insensitive to order and repeats, so what is published
///   is the same.
/// - `iap.audit`: indexes each stage's decision under its delivery and transaction
///   (``RedisAuditIndex``), from which the API reads a purchase event's status and a
///   transaction's history. A set union: no lock, no idempotency marker, and a poll's entries
///   indexed together in one round trip (``BatchedInputHandler``, D62).
public struct CustomerStateHandler: MessageHandler, BatchedInputHandler {
    private let store: RedisCustomerStore
    private let customersTopic: String
    private let auditIndex: RedisAuditIndex?
    private let auditTopic: String?

    /// - Parameters:
    ///   - auditTopic: the input holding the audit trail; records of the other input are changes.
    public init(
        store: RedisCustomerStore, customersTopic: String, auditIndex: RedisAuditIndex? = nil,
        auditTopic: String? = nil
    ) {
        self.store = store
        self.customersTopic = customersTopic
        self.auditIndex = auditIndex
        self.auditTopic = auditTopic
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<EntitlementEvent> {
        let event = try EventDecoder.decode(EntitlementEvent.self, from: message.record.value)
        return Prepared(event, idempotencyKey: event.eventId)
    }

    public var batchedInputs: Set<String> { auditTopic.map { [$0] } ?? [] }

    /// An entry of the trail and the record's bytes, which are its stored form.
    public func prepareEntry(_ message: InboundMessage) throws(Rejection) -> (entry: AuditEntry, bytes: [UInt8]) {
        let bytes = Array(message.record.value)
        return (try EventDecoder.decode(AuditEntry.self, from: bytes), bytes)
    }

    public func handle(batch: [(entry: AuditEntry, bytes: [UInt8])]) async throws {
        try await auditIndex?.index(batch)
    }

    public func handle(_ event: EntitlementEvent, message: InboundMessage) async throws -> StageOutcome {
        var record =
            try await store.record(bundleId: event.bundleId, userId: event.userId)
            ?? CustomerRecord(bundleId: event.bundleId, userId: event.userId)
        switch record.apply(event) {
        case .duplicate:
            return .skip(reason: "the purchase's current change already")
        case .superseded:
            return .skip(reason: "the purchase holds a later change (sequence)")
        case .changed:
            let published = record
            let store = self.store
            return .deliver([try .event(published, topic: customersTopic, key: published.key)]) {
                try await store.save(published)
            }
        }
    }
}
