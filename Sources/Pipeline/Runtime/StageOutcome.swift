public import Contracts
public import Foundation
public import Kafka

/// What a stage decided about one record. The runtime acts on it, and only after that
/// action is durable (outputs acknowledged, retry scheduled, rejection written) does the
/// record's offset become committable.
public enum StageOutcome: Sendable {
    /// Write these records; the input is done once the broker acknowledged all of them.
    case produce([KafkaRecord])
    /// Write these records, then run `afterDelivery` once the broker acknowledged all of them.
    /// For state that may only change once the outputs exist (grant's entitlement state): a
    /// crash in between replays the record, which produces the same outputs again instead of
    /// finding the state already changed and producing nothing.
    case deliver([KafkaRecord], afterDelivery: @Sendable () async throws -> Void)
    /// Try again later, never earlier than `after` (e.g. Apple's Retry-After). Charged to the
    /// retry budget: after the last attempt the record is dead-lettered.
    case retry(after: Duration, reason: String)
    /// Deliver the record again at `until`: the stage waits for something another record
    /// brings (match waiting for an order) and knows when it stops waiting. Not charged to the
    /// retry budget. `since` (when the record first waited) travels with the record as
    /// ``InboundMessage/waitingSince``, so a stage whose own note of the wait was lost (Redis
    /// lost its data) still measures its window from the start.
    case wait(until: Date, since: Date, reason: String)
    /// Refuse for good: the record goes to the reject topic with this reason code.
    case reject(ReasonCode, detail: String)
    /// Nothing to do (a duplicate, an event this stage ignores).
    case skip(reason: String)
}
