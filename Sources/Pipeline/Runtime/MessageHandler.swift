public import Contracts
public import Foundation
public import Kafka

/// A record as a stage sees it: the Kafka record plus how many times it was tried before.
public struct InboundMessage: Sendable {
    public var record: KafkaMessage
    /// 0 on first delivery; the retry promoter increments it on each re-publish (a wait does not).
    public var attempt: Int
    /// When this record first waited (``StageOutcome/wait(_:)``), carried by
    /// the runtime on every later delivery; nil for a record that never waited.
    public var waitingSince: Date?
    /// What the stage left itself when this record last waited (``StageOutcome/Wait/memo``),
    /// on the delivery that ends that wait only; nil otherwise.
    public var waitMemo: String?

    public init(record: KafkaMessage, attempt: Int, waitingSince: Date? = nil, waitMemo: String? = nil) {
        self.record = record
        self.attempt = attempt
        self.waitingSince = waitingSince
        self.waitMemo = waitMemo
    }
}

/// The rules of one stage, plugged into `WorkerRuntime`.
///
/// Two phases so the runtime can take the idempotency lock between them: `prepare` decodes
/// and names the business id (cheap, synchronous, may reject), `handle` does the work.
public protocol MessageHandler: Sendable {
    associatedtype Work: Sendable

    /// Validates and decodes a record. Throw a contract `Rejection` for input that can never succeed.
    func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<Work>

    /// Decides the outcome. A thrown error is treated as transient and retried with backoff.
    func handle(_ work: Work, message: InboundMessage) async throws -> StageOutcome

    /// Who a record `prepare` refused is about, as far as its raw bytes tell: the audit trail
    /// names the publisher's event in the rejection (D51). Nil by default.
    func auditSubject(ofRefused message: InboundMessage) -> AuditSubject?
}

extension MessageHandler {
    public func auditSubject(ofRefused message: InboundMessage) -> AuditSubject? { nil }
}

/// The decoded form of a record and the business id its side effects are deduplicated on.
public struct Prepared<Work: Sendable>: Sendable {
    public var work: Work
    /// Apple business id (transactionId, notificationUUID, …); `nil` runs without a guard.
    public var idempotencyKey: String?
    /// Who the record is about, for the audit entries the runtime writes for it (a rejection, a
    /// skip, a duplicate, a dead letter; D51); nil for a record no publisher asks about (an order).
    public var audit: AuditSubject?

    public init(_ work: Work, idempotencyKey: String? = nil, audit: AuditSubject? = nil) {
        self.work = work
        self.idempotencyKey = idempotencyKey
        self.audit = audit
    }
}
