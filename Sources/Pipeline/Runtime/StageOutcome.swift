public import Contracts
public import Foundation
public import Kafka

/// What a stage decided about one record. The runtime acts on it, and only after that
/// action is durable (outputs acknowledged, retry scheduled, rejection written) does the
/// record's offset become committable.
public enum StageOutcome: Sendable {
    /// Write these records; the input is done once the broker acknowledged all of them.
    case produce([KafkaRecord])
    /// Write these records; once the broker acknowledged all of them, write `state`, the
    /// durable copy of the state the delivery changes; once that is acknowledged too, run
    /// `afterDelivery` (saving the state in Redis). For state that may only change once the
    /// outputs exist (grant's entitlement state): a crash in between replays the record, which
    /// produces the same outputs again instead of finding the state already changed and
    /// producing nothing.
    ///
    /// Two produces, not one: a produce is atomic per partition only, so in one produce a crash
    /// or a broker outage can leave the state's copy on its topic without the events it records.
    /// A rebuild after a Redis loss trusts that copy, and the replayed record then finds its
    /// events "already applied": they are never written (decision D52; the full soak lost 8
    /// purchases so). In this order the copy never runs ahead of the events.
    case deliver([KafkaRecord], state: [KafkaRecord] = [], afterDelivery: @Sendable () async throws -> Void)
    /// Try again later, never earlier than `after` (e.g. Apple's Retry-After). Charged to the
    /// retry budget: after the last attempt the record is dead-lettered.
    case retry(after: Duration, reason: String)
    /// Deliver the record again at ``Wait/until``: the stage waits for something another record
    /// brings (match waiting for an order) or for its turn (verify waiting for a slot of Apple's
    /// rate budget) and knows when to look again. Not charged to the retry budget; bounded by the
    /// stage's `retry.maxWait` from ``Wait/since`` instead, past which the record is dead-lettered.
    case wait(Wait)
    /// Refuse for good: the record goes to the reject topic with this reason code.
    case reject(ReasonCode, detail: String)
    /// Nothing to do (a duplicate, an event this stage ignores).
    case skip(reason: String)
}

extension StageOutcome {
    /// A record's wait (``StageOutcome/wait(_:)``).
    public struct Wait: Sendable, Hashable {
        /// When to deliver the record again.
        public var until: Date
        /// When the record first waited. It travels with the record as
        /// ``InboundMessage/waitingSince``, so a stage whose own note of the wait was lost (Redis
        /// lost its data) still measures its window from the start, and the runtime measures the
        /// stage's `retry.maxWait` from it.
        public var since: Date
        /// What the record waits for, a label of few values (`order`,
        /// `apple:transactionInfo:Production`): the waiting gauges are per label.
        public var on: String
        public var reason: String
        /// Handed back to the stage on the delivery that ends the wait
        /// (``InboundMessage/waitMemo``): what the stage must know to pick up where it waited
        /// (verify: the Apple call slot it booked).
        public var memo: String?
        /// Whether another delivery of the same business id may end the wait before ``until``
        /// (match: the order's arrival re-publishes the transaction). The runtime then notes the
        /// wait on the idempotency marker, so that delivery cancels it instead of leaving it to
        /// be delivered for nothing. False for a wait only time ends (verify's Apple slot): the
        /// next delivery takes the lock without looking for a wait to cancel.
        public var releasable: Bool

        public init(
            until: Date, since: Date, on: String, reason: String, memo: String? = nil, releasable: Bool = false
        ) {
            self.until = until
            self.since = since
            self.on = on
            self.reason = reason
            self.memo = memo
            self.releasable = releasable
        }
    }
}
