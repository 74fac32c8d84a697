public import Contracts
public import Customers
import Kafka
public import Pipeline
public import WorkerCommon

/// The customer state stage (D49): folds each `iap.entitlement.v1` change into its customer's
/// ``CustomerRecord`` and publishes the new record to the compacted `iap.customers` (keyed
/// `<bundleId>|<userId>`) before saving it in Redis, the read copy the API serves. A crash in
/// between folds the same change again into the same record: the fold is insensitive to order
/// and repeats, so what is published is the same.
public struct CustomerStateHandler: MessageHandler {
    private let store: RedisCustomerStore
    private let customersTopic: String

    public init(store: RedisCustomerStore, customersTopic: String) {
        self.store = store
        self.customersTopic = customersTopic
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<EntitlementEvent> {
        let event = try EventDecoder.decode(EntitlementEvent.self, from: message.record.value)
        return Prepared(event, idempotencyKey: event.eventId)
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
