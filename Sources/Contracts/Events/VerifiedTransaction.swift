public import AppStoreModels

/// Verify → match (`iap.verified.v1` on `iap.verified`, key: originalTransactionId).
///
/// One transaction Apple vouched for, with the lifecycle context it arrived in and the
/// publisher's hints. Field reference: docs/events.md.
public struct VerifiedTransaction: PipelineEvent, Hashable {
    public static let schema = "iap.verified.v1"

    public private(set) var schema: String = Self.schema
    public var transaction: TransactionDetails
    /// Set when the transaction came in a notification.
    public var notification: NotificationContext?
    /// Set when a notification carried renewal info.
    public var renewal: RenewalDetails?
    public var hints: PublisherHints
    public var source: PurchaseSource
    public var receivedAt: Timestamp
    public var verifiedAt: Timestamp

    public init(
        transaction: TransactionDetails,
        hints: PublisherHints,
        source: PurchaseSource,
        receivedAt: Timestamp,
        verifiedAt: Timestamp,
        notification: NotificationContext? = nil,
        renewal: RenewalDetails? = nil
    ) {
        self.transaction = transaction
        self.hints = hints
        self.source = source
        self.receivedAt = receivedAt
        self.verifiedAt = verifiedAt
        self.notification = notification
        self.renewal = renewal
    }

    /// The Kafka key of `iap.verified` and `iap.matched`: every update of one subscription
    /// goes through one lane, in order (decision D9).
    public var partitionKey: String { self.transaction.originalTransactionId }

    // recordKey: BusinessKeys.swift.
}
