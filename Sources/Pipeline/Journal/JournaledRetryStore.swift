import Foundation

/// The workers' ``RetryStore``: every delivery is journaled in Kafka (``DeliveryJournal``) and
/// indexed in Redis (a ``RedisRetryStore``). The promoter works off the index; the journal is
/// what ``restore(_:)`` reads back after Redis lost its data (decision D19).
public struct JournaledRetryStore: RetryStore {
    public let journal: DeliveryJournal
    private let index: any RetryStore

    public init(journal: DeliveryJournal, index: any RetryStore) {
        self.journal = journal
        self.index = index
    }

    /// Journal first: a delivery that reached the index but not the journal would be lost with Redis.
    public func schedule(_ delivery: ScheduledDelivery, ifScheduled: ScheduledDelivery.IfScheduled) async throws {
        try await journal.record(delivery, due: delivery.dueDate(scheduledAt: Date()))
        try await index.schedule(delivery, ifScheduled: ifScheduled)
    }

    public func claimDue(limit: Int, lease: Duration) async throws -> [ClaimedRetry] {
        try await index.claimDue(limit: limit, lease: lease)
    }

    /// Tombstones first: a crash in between leaves the item in the index, whose lease brings it
    /// back once more (a duplicate the idempotency guard absorbs); the other order would leave
    /// the journal owing a delivery that was made, to be made again after a Redis loss.
    public func acknowledge(_ ids: [String]) async throws {
        try await journal.forget(ids)
        try await index.acknowledge(ids)
    }

    public func depth() async throws -> Int {
        try await index.depth()
    }

    public func waiting() async throws -> WaitingSummary {
        try await index.waiting()
    }

    /// Puts what the journal still owes back into the index: a retry at its due time (never
    /// earlier, so an Apple Retry-After still holds), a wait at once, so its stage looks again
    /// now and rebuilds its own note of the wait (the wait's start travels with the record).
    /// Scheduling is idempotent per id, so restoring twice, or while promoters run, is safe.
    ///
    /// A wait is brought forward also when its id is in the index already: a record in flight
    /// when Redis was emptied can schedule its wait into the empty Redis at the wait's deadline,
    /// where its stage's note of the wait is gone (an order that arrives then releases nothing).
    /// Kept at that deadline, the purchase would wait out the whole order grace for an order
    /// that is indexed (the 10,000-purchase soak saw 9 such).
    public func restore(_ contents: DeliveryJournal.Contents) async throws {
        for var delivery in contents.owed {
            if delivery.kind == .wait {
                delivery.notBefore = nil
                try await index.schedule(delivery, ifScheduled: .bringForward)
            } else {
                try await index.schedule(delivery, ifScheduled: .keep)
            }
        }
    }
}
