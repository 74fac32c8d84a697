public import AppStoreModels

/// Every key the pipeline derives from business data to recognise "the same thing again", in
/// one place. A change here changes what counts as a duplicate (and, for `eventId`, what the
/// consumers of `iap.entitlements` see), so each derivation says who uses it and for what.
///
/// | Key | Form | Layer | What it recognises |
/// |---|---|---|---|
/// | ``VerifyRequest/dedupeKey`` | hex SHA-256 of (kind, bundleId, userId, payload) | intake: the runtime's guard | the same Apple artefact published again for the same user (dropped); for another user it is a new key, so match can report `ownership_conflict` |
/// | ``VerifyRequest/idempotencyKey`` | `notification:<notificationUUID>`, else `purchase:<dedupeKey>` | verify: the runtime's guard | one Apple verification per request; Apple's delivery retries of a notification keep its UUID |
/// | ``VerifiedTransaction/recordKey`` | `<transactionId>\|n:<notificationUUID>` or `<transactionId>\|e:<eventId>` | match and grant: the runtime's guard (``MatchedTransaction/idempotencyKey``); match's waiting store | one processing of one delivery of a transaction (a retry copy, a re-published waiting record), while a new notification of it (a refund) or a new purchase event is new |
/// | ``effectKey(transactionId:effect:date:)`` | `<transactionId>\|<effect>`; `renew` and `grace` add `\|<access end ms>`, `revoke` `\|<revocationDate ms>`, `reinstate` `\|<reversal's signedDate ms>` | grant: names each change (`EntitlementChange.idempotencyKey`); whether a change is new is decided by grant's state, not by this key | one change per (transaction, effect, Apple's date of it): a renewal extended again, a second refund after a reversal are changes of their own; the input of its eventId |
/// | ``entitlementEventId(effectKey:)`` | UUIDv8 of SHA-256(effect key) | `iap.entitlement.v1` `eventId` | the same change published again (consumers dedupe on it) |
/// | ``subscriptionEventId(notificationUUID:transactionId:)`` | UUIDv8 of SHA-256(`subscription-event\|<notificationUUID>\|<transactionId>`) | `iap.subscription-event.v1` `eventId` | the same notification's signal published again (consumers dedupe on it) |
/// | ``republishedPurchaseEventId(orderId:transactionId:)`` | UUIDv8 of SHA-256(`support-order\|<orderId>\|<transactionId>`) | `iap support order --republish`: the `iap.purchase.v1` `eventId` | the same transaction of the same order republished again (intake also drops it by its dedupe key: the payload is the bare transaction id) |
/// | ``idempotencyId(stage:key:)`` | `<stage>:<key>` | the runtime (`RedisIdempotencyGuard`, under the Redis key `Keyspace` makes of it): lock, scheduled-retry marker and done marker in one key | a business id of the rows above already done by this stage |
///
/// Not duplicates but lanes: the Kafka keys (routing key, originalTransactionId, userId) only
/// choose a partition (docs/events.md, "Topics and keys").
public enum BusinessKeys {
    /// `<transactionId>|<effect>`, and for the effects that can happen to one transaction more
    /// than once, Apple's date of that change: a renewal and a grace period name the end of the
    /// access they give (an extension of the same transaction, RENEWAL_EXTENDED, is a change of
    /// its own), a revoke its `revocationDate`, a reinstatement the signing date of the reversal
    /// (so refund, reversal, refund again are three changes). `date` is ignored for `grant` and
    /// `expire`, which happen once per transaction, and a dated effect without a date keeps the
    /// bare form.
    public static func effectKey(transactionId: String, effect: EntitlementEffect, date: Timestamp? = nil) -> String {
        let key = "\(transactionId)|\(effect.rawValue)"
        guard Self.datedEffects.contains(effect), let date else { return key }
        return "\(key)|\(date.millisecondsSince1970)"
    }

    /// The effects whose key names a date (see ``effectKey(transactionId:effect:date:)``).
    public static let datedEffects: Set<EntitlementEffect> = [.renew, .grace, .revoke, .reinstate]

    /// The `eventId` of the entitlement event of a change: the first 16 bytes of SHA-256 of its
    /// effect key as a UUID, so the same change always gets the same id.
    public static func entitlementEventId(effectKey: String) -> String {
        Digest.uuid(fromSHA256Of: effectKey)
    }

    /// The `eventId` of the purchase event `iap support order --republish` publishes for one
    /// transaction of an order: re-running the republish publishes the same event again.
    public static func republishedPurchaseEventId(orderId: String, transactionId: String) -> String {
        Digest.uuid(fromSHA256Of: "support-order|\(orderId)|\(transactionId)")
    }

    /// The `eventId` of the subscription event of one notification about one transaction
    /// (`iap.subscription-event.v1`, D56): Apple's retries of the notification, reconcile's copy
    /// of it and a replay all carry the same id.
    public static func subscriptionEventId(notificationUUID: String, transactionId: String) -> String {
        Digest.uuid(fromSHA256Of: "subscription-event|\(notificationUUID)|\(transactionId)")
    }

    /// What a stage's lock and "done" marker for one business key are named by: `<stage>:<key>`.
    /// A business id, not a Redis key: `Keyspace` (in `Pipeline`) puts it under the deployment's
    /// prefix and makes it the key's hash tag.
    public static func idempotencyId(stage: String, key: String) -> String {
        "\(stage):\(key)"
    }
}

extension VerifyRequest {
    /// SHA-256 over kind, bundle id, user and payload: the same artefact published again for
    /// the same user is an exact duplicate and can be dropped. The user is part of it on
    /// purpose: the same receipt sent for *another* user must reach match, which reports it as
    /// `ownership_conflict` instead of silently dropping it.
    public var dedupeKey: String {
        Digest.sha256Hex([self.kind.rawValue, self.bundleId ?? "", self.hints.userId ?? "", self.payload])
    }

    /// The business id the verify stage guards on: `notification:<notificationUUID>` (stable
    /// across Apple's retries), else `purchase:<dedupeKey>`.
    public var idempotencyKey: String {
        if self.kind == .notification, let uuid = self.notificationUUID { return "notification:\(uuid)" }
        return "purchase:\(self.dedupeKey)"
    }
}

extension VerifiedTransaction {
    /// Identifies this delivery of this transaction: `<transactionId>|n:<notificationUUID>` for
    /// notifications, `<transactionId>|e:<eventId>` for purchases. Match and grant guard on
    /// it, so a retry copy or a re-published waiting record is processed once, while the same
    /// transaction in a new notification (a refund) or a new purchase event is not mistaken
    /// for a duplicate.
    public var recordKey: String {
        let delivery = self.notification.map { "n:\($0.notificationUUID)" } ?? "e:\(self.hints.eventId ?? "")"
        return "\(self.transaction.transactionId)|\(delivery)"
    }
}

extension MatchedTransaction {
    /// The business id grant guards the whole record on (the verified record's key).
    public var idempotencyKey: String { self.verified.recordKey }
}
