public import AppStoreModels
public import Basics

/// Every stage → `iap.audit` (`iap.audit.v1`, key: ``partitionKey``): what one stage decided
/// about one record, with the publisher's `eventId` (decision D51).
///
/// The audit trail is how a publisher learns what became of an event whose effect was nil (a
/// duplicate, a replay, a hint that lost to Apple's signed token) and how support reads a
/// transaction's history, without logs. The customer state stage indexes it into each event's
/// status and each transaction's history. Field reference: docs/events.md.
public struct AuditEntry: PipelineEvent, Hashable {
    public static let schema = "iap.audit.v1"

    public private(set) var schema: String = Self.schema
    /// The same decision about the same record written again (a redelivery after a crash) has
    /// the same id: readers keep one entry per id.
    public var auditId: String
    /// The stage that decided (`intake`, `verify`, `match`, `grant`).
    public var stage: String
    public var decision: AuditDecision
    /// When the stage decided.
    public var at: Timestamp
    /// The publisher's `eventId`; nil for notifications and for an event whose id could not be read.
    public var eventId: String?
    /// Set for what came in a notification.
    public var notificationUUID: String?
    public var bundleId: String?
    /// Set once a transaction is known (verify onwards).
    public var transactionId: String?
    public var originalTransactionId: String?
    /// The user a transaction was matched or granted to, or the publisher's hint before that.
    public var userId: String?
    /// A `rejected` entry's reason code; a `noEffect` or `deadLettered` entry's reason.
    public var reason: String?
    /// What a person reading the history should know (Apple's answer, the rule's words).
    public var detail: String?
    /// `verified`: the transactions Apple returned for the event, every one of them.
    public var transactions: [String]?
    /// `verified`: the environment Apple answered from.
    public var environment: AppStoreEnvironment?
    /// `matched`: the rule that tied the transaction to its user.
    public var matchedBy: MatchedBy?
    public var orderId: String?
    /// `matched`: what the rule noticed although it matched (a hint that lost, …).
    public var warnings: [MatchWarning]?
    /// `changed`: the entitlement changes grant published (`grant`, `renew`, `revoke`, …).
    public var effects: [EntitlementAction]?

    /// An entry with its ``auditId`` computed from these fields; a stage that adds fields after
    /// calls ``identified()`` (``AuditTrail`` does when it writes the entry).
    public init(
        stage: String, decision: AuditDecision, at: Timestamp, subject: AuditSubject,
        userId: String? = nil, reason: String? = nil, detail: String? = nil
    ) {
        self.init(
            auditId: "", stage: stage, decision: decision, at: at, subject: subject, userId: userId, reason: reason,
            detail: detail)
        self.auditId = self.identity
    }

    /// An entry under the id it was written with (the reader's: a stored id is not recomputed),
    /// or under none yet for a writer that names it once its fields are final (``AuditTrail``).
    package init(
        auditId: String, stage: String, decision: AuditDecision, at: Timestamp, subject: AuditSubject,
        userId: String?, reason: String?, detail: String?
    ) {
        self.auditId = auditId
        self.stage = stage
        self.decision = decision
        self.at = at
        self.eventId = subject.eventId
        self.notificationUUID = subject.notificationUUID
        self.bundleId = subject.bundleId
        self.transactionId = subject.transactionId
        self.originalTransactionId = subject.originalTransactionId
        self.userId = userId ?? subject.userId
        self.reason = reason
        self.detail = detail
    }

    /// What the entry is about, as the runtime and the stages name it.
    public var subject: AuditSubject {
        AuditSubject(
            eventId: eventId, notificationUUID: notificationUUID, bundleId: bundleId, transactionId: transactionId,
            originalTransactionId: originalTransactionId, userId: userId)
    }

    /// The transactions the entry is about: the one it names and, for verify's entry of an event,
    /// each Apple returned (the keys of the index the state stage keeps, and a history's test).
    public var transactionsNamed: [String] {
        var ids = transactions ?? []
        if let transactionId, !ids.contains(transactionId) { ids.append(transactionId) }
        return ids
    }

    /// The Kafka key: the transaction when the entry names one (its history in one partition,
    /// in order), else the delivery (``AuditSubject/delivery``).
    public var partitionKey: String { transactionId ?? subject.delivery ?? "unidentified" }

    /// Stage, delivery, transaction, decision and what the decision says: everything but the
    /// time, so a redelivery that decides the same writes the same id. Recomputed after the
    /// fields a stage adds (``identified()``).
    public var identity: String {
        let effects = (self.effects ?? []).map(\.rawValue).joined(separator: ",")
        return Digest.uuid(
            fromSHA256Of: [
                stage, subject.delivery ?? "", transactionId ?? "", decision.rawValue, reason ?? "", effects,
                (transactions ?? []).joined(separator: ","), userId ?? "",
            ].joined(separator: "|"))
    }

    /// This entry with its ``auditId`` computed from its final fields.
    public func identified() -> AuditEntry {
        var entry = self
        entry.auditId = entry.identity
        return entry
    }
}

/// What a stage decided (`decision` in `iap.audit.v1`). Terminal for a purchase event's status:
/// `rejected`, `unmatched`, `changed` and `noEffect` (docs/api.md, "Purchase status").
public struct AuditDecision: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Intake: valid, sent on to verify.
    public static let accepted = Self(rawValue: "accepted")
    /// Verify: Apple vouched for it; `transactions` lists what it held.
    public static let verified = Self(rawValue: "verified")
    /// Match: tied to `userId` by `matchedBy`.
    public static let matched = Self(rawValue: "matched")
    /// Match: no order or user within the window; the transaction is on `iap.unmatched`.
    public static let unmatched = Self(rawValue: "unmatched")
    /// Grant: entitlement changes published (`effects`).
    public static let changed = Self(rawValue: "changed")
    /// Any stage: nothing to do, `reason` says why (a duplicate, a change already made).
    public static let noEffect = Self(rawValue: "noEffect")
    /// Any stage: refused for good with the reason code in `reason`; on `iap.rejected` too.
    public static let rejected = Self(rawValue: "rejected")
    /// Any stage: out of retries or past its longest wait; on the input's `.dlq` for an operator.
    public static let deadLettered = Self(rawValue: "deadLettered")
}

/// Who an audit entry is about: the delivery (the publisher's event or Apple's notification)
/// and, once known, the transaction.
public struct AuditSubject: Hashable, Sendable {
    public var eventId: String?
    public var notificationUUID: String?
    public var bundleId: String?
    public var transactionId: String?
    public var originalTransactionId: String?
    /// The publisher's userId hint, until match names the user.
    public var userId: String?

    public init(
        eventId: String? = nil, notificationUUID: String? = nil, bundleId: String? = nil,
        transactionId: String? = nil, originalTransactionId: String? = nil, userId: String? = nil
    ) {
        self.eventId = eventId
        self.notificationUUID = notificationUUID
        self.bundleId = bundleId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.userId = userId
    }

    /// `e:<eventId>` for a publisher's event, `n:<notificationUUID>` for a notification (the
    /// delivery part of ``VerifiedTransaction/recordKey``); nil when neither is known.
    public var delivery: String? {
        if let eventId { return "e:\(eventId)" }
        return notificationUUID.map { "n:\($0)" }
    }
}

extension VerifyRequest {
    /// The request as an audit subject.
    public var auditSubject: AuditSubject {
        AuditSubject(
            eventId: hints.eventId, notificationUUID: notificationUUID, bundleId: bundleId, userId: hints.userId)
    }
}

extension VerifiedTransaction {
    /// This delivery of the transaction as an audit subject.
    public var auditSubject: AuditSubject {
        AuditSubject(
            eventId: hints.eventId, notificationUUID: notification?.notificationUUID, bundleId: transaction.bundleId,
            transactionId: transaction.transactionId, originalTransactionId: transaction.originalTransactionId,
            userId: hints.userId)
    }
}

extension MatchedTransaction {
    /// The matched delivery as an audit subject: the user match named, the hint being history.
    public var auditSubject: AuditSubject {
        var subject = verified.auditSubject
        subject.userId = userId
        return subject
    }
}
