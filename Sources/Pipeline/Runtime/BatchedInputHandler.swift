public import Contracts

/// A stage's inputs whose records need nothing of what the runtime gives a record of its own:
/// no lane, no idempotency lock, no trace span, no outcome (decision D62). A handler adopts it
/// beside ``MessageHandler``; the runtime then takes each poll's records of ``batchedInputs``
/// together: one ``prepareEntry(_:)`` each, one ``handle(batch:)`` for those that decoded, one
/// offset store for all of them.
///
/// Only for records each independent of every other and idempotent (a set union): a batch is
/// retried whole, in place, after a failure, and replayed whole after a crash. Every record of the
/// stage's other inputs still runs on its own, through ``MessageHandler``.
public protocol BatchedInputHandler: Sendable {
    associatedtype Entry: Sendable

    /// The input topics taken a poll's worth at a time; records of any other input run singly.
    var batchedInputs: Set<String> { get }

    /// Decodes one record of a batched input. Throw a contract `Rejection` for input that can
    /// never succeed: the runtime writes it to the reject topic, as for a single record.
    func prepareEntry(_ message: InboundMessage) throws(Rejection) -> Entry

    /// Does the work of a poll's records that decoded. A thrown error is transient: the runtime
    /// retries the whole batch in place, with backoff, until it succeeds or the worker stops.
    func handle(batch: [Entry]) async throws
}
