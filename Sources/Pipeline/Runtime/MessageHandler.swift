public import Kafka

/// A record as a stage sees it: the Kafka record plus how many times it was tried before.
public struct InboundMessage: Sendable {
    public var record: KafkaMessage
    /// 0 on first delivery; the retry promoter increments it on each re-publish.
    public var attempt: Int

    public init(record: KafkaMessage, attempt: Int) {
        self.record = record
        self.attempt = attempt
    }
}

/// The rules of one stage, plugged into `WorkerRuntime`.
///
/// Two phases so the runtime can take the idempotency lock between them: `prepare` decodes
/// and names the business id (cheap, synchronous, may reject), `handle` does the work.
public protocol MessageHandler: Sendable {
    associatedtype Work: Sendable

    /// Validates and decodes a record. Throw `Rejection` for input that can never succeed.
    func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<Work>

    /// Decides the outcome. A thrown error is treated as transient and retried with backoff.
    func handle(_ work: Work, message: InboundMessage) async throws -> StageOutcome
}

/// The decoded form of a record and the business id its side effects are deduplicated on.
public struct Prepared<Work: Sendable>: Sendable {
    public var work: Work
    /// Apple business id (transactionId, notificationUUID, …); `nil` runs without a guard.
    public var idempotencyKey: String?

    public init(_ work: Work, idempotencyKey: String? = nil) {
        self.work = work
        self.idempotencyKey = idempotencyKey
    }
}
