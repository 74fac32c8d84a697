import Basics
public import Foundation

/// Durable delayed deliveries: retries and waits (`JournaledRetryStore` in workers: a compacted
/// Kafka topic with a Redis delay queue as its index).
///
/// The runtime acknowledges a Kafka record that must be delivered again only after `schedule`
/// returned, so the delivery lives in a durable place at every moment.
public protocol RetryStore: Sendable {
    /// Schedules a delivery; `ifScheduled` says what a delivery of the same id, scheduled
    /// already, keeps (its due time, or the earlier of the two).
    func schedule(_ delivery: ScheduledDelivery, ifScheduled: ScheduledDelivery.IfScheduled) async throws
    /// Claims up to `limit` due items for `lease`; unacknowledged items come back afterwards.
    func claimDue(limit: Int, lease: Duration) async throws -> [ClaimedRetry]
    /// Removes items whose re-publish was acknowledged by Kafka.
    func acknowledge(_ ids: [String]) async throws
    /// Items waiting, for the retry-depth gauge.
    func depth() async throws -> Int
    /// The scheduled waits (kind ``ScheduledDelivery/Kind/wait``), for the waiting gauges.
    func waiting() async throws -> WaitingSummary
}

extension RetryStore {
    /// Schedules a delivery (idempotent per id: a delivery scheduled already stays as it is).
    public func schedule(_ delivery: ScheduledDelivery) async throws {
        try await schedule(delivery, ifScheduled: .keep)
    }
}

/// The waits a stage has scheduled: how many per ``StageOutcome/Wait/on`` label, and since
/// when the oldest of them waits.
public struct WaitingSummary: Sendable, Hashable {
    public var counts: [String: Int]
    /// The earliest ``StageOutcome/Wait/since`` of the scheduled waits; nil when there are none.
    public var oldestSince: Date?

    public init(counts: [String: Int] = [:], oldestSince: Date? = nil) {
        self.counts = counts
        self.oldestSince = oldestSince
    }
}

/// A record to deliver to its stage again later.
public struct ScheduledDelivery: Sendable, Hashable {
    /// What scheduling a delivery does to one of the same id that is scheduled already.
    public enum IfScheduled: Sendable, Hashable {
        /// Nothing: a redelivered Kafka record cannot schedule its retry twice or push it later.
        case keep
        /// Moves it to the new due time if that is earlier: a restore from the journal is due
        /// when the journal says, also over a copy scheduled later while Redis was emptied.
        case bringForward
    }

    public enum Kind: String, Sendable, Hashable {
        /// Something failed; charged to the retry budget.
        case retry
        /// The stage asked to look again at a time of its choosing (``StageOutcome/wait(_:)``).
        case wait
    }

    /// Stable per delivery, so scheduling the same delivery twice (after a crash) is one item.
    public var id: String
    /// The ``RetryEnvelope`` to re-publish.
    public var payload: [UInt8]
    public var kind: Kind
    /// Due no earlier than this long after scheduling (measured on the delay queue's clock).
    public var delay: Duration
    /// Due no earlier than this time either; nil for no such bound.
    public var notBefore: Date?
    /// For a wait: what it waits for and since when, counted by ``RetryStore/waiting()``.
    public var waiting: Waiting?

    /// What a scheduled wait waits for (``StageOutcome/Wait/on``) and since when.
    public struct Waiting: Sendable, Hashable {
        public var on: String
        public var since: Date

        public init(on: String, since: Date) {
            self.on = on
            self.since = since
        }
    }

    public init(
        id: String, payload: [UInt8], kind: Kind, delay: Duration, notBefore: Date? = nil, waiting: Waiting? = nil
    ) {
        self.id = id
        self.payload = payload
        self.kind = kind
        self.delay = delay
        self.notBefore = notBefore
        self.waiting = waiting
    }

    /// When the delivery is due by `now`'s clock: the later of the delay and `notBefore`.
    public func dueDate(scheduledAt now: Date) -> Date {
        let afterDelay = now.addingTimeInterval(delay.seconds)
        guard let notBefore else { return afterDelay }
        return max(afterDelay, notBefore)
    }
}

public struct ClaimedRetry: Sendable, Hashable {
    public var id: String
    public var payload: [UInt8]

    public init(id: String, payload: [UInt8]) {
        self.id = id
        self.payload = payload
    }
}

/// "Already done?" and "who works on it now?" for one business id across all replicas.
public protocol IdempotencyGuard: Sendable {
    /// `attempt` is the delivery's retry count (``InboundMessage/attempt``).
    func begin(_ id: String, lockTTL: Duration, attempt: Int) async throws -> IdempotencyState
    /// Records that the side effect happened, then releases the lock.
    func complete(_ id: String, token: String, retention: Duration) async throws
    /// Releases the lock without marking done (the work will be tried again).
    func abandon(_ id: String, token: String) async throws
    /// Releases the lock, noting that retry `attempt` is scheduled: until `ttl` passes, older
    /// deliveries of the id are ``IdempotencyState/superseded``.
    func postpone(_ id: String, token: String, untilAttempt attempt: Int, ttl: Duration) async throws
    /// Releases the lock, noting that the wait scheduled under the delivery id `wait` stands for
    /// the id until `ttl` passes: the next delivery to take the lock learns of it
    /// (``IdempotencyState/acquiredOverWait(token:wait:)``), so that the wait it makes redundant
    /// (match's transaction released by its order) is cancelled instead of delivered for nothing.
    func park(_ id: String, token: String, wait: String, ttl: Duration) async throws
}

public enum IdempotencyState: Sendable, Hashable {
    case alreadyDone
    case acquired(token: String)
    /// The lock, taken from a wait an earlier delivery of the id scheduled (``IdempotencyGuard/park(_:token:wait:ttl:)``):
    /// once this delivery's outcome is durable, that wait is redundant.
    case acquiredOverWait(token: String, wait: String)
    /// Another worker holds the lock right now.
    case busy
    /// An older copy of a delivery whose retry is scheduled (replayed after a crash): the
    /// scheduled retry does its work, not this copy.
    case superseded
}
