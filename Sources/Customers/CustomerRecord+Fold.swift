public import Contracts

extension CustomerRecord {
    /// What applying one change did.
    public enum Applied: Sendable, Hashable {
        /// The record changed: publish it.
        case changed
        /// The purchase's current change is this one (a redelivery, a replay).
        case duplicate
        /// The purchase holds a later change already (by its number, D48): this one arrived late.
        case superseded
    }

    /// Applies one `iap.entitlement.v1` change of this customer.
    ///
    /// Per purchase only its latest change counts, by the change's number (D48), and `since` is
    /// the earliest purchase date of any of its changes, so the same changes in any order, any
    /// of them repeated, leave the same record. Changes published before D48 carry no number;
    /// they are applied in arrival order, which is their order: `iap.entitlements` is keyed by
    /// user, and grant publishes one purchase's changes in turn.
    public mutating func apply(_ event: EntitlementEvent) -> Applied {
        precondition(
            event.bundleId == bundleId && event.userId == userId, "a change of another customer's record")
        let current = purchases[event.originalTransactionId]
        let since = [current?.since, event.purchaseDate].compactMap { $0 }.min()
        if var current {
            let outcome: Applied? =
                if current.eventId == event.eventId {
                    .duplicate
                } else if let held = current.sequence, let incoming = event.sequence, incoming <= held {
                    .superseded
                } else {
                    nil
                }
            if let outcome {
                guard since != current.since else { return outcome }
                current.since = since
                purchases[event.originalTransactionId] = current
                return .changed
            }
        }
        purchases[event.originalTransactionId] = PurchaseRecord(event, since: since)
        return .changed
    }
}
