public import AppStoreModels
public import Basics

/// A verified transaction that found no order or user within the wait window
/// (`iap.unmatched.v1` on the contract topic `iap.unmatched`, key: originalTransactionId).
///
/// Operators reconcile these by hand or replay them once the order exists.
public struct UnmatchedTransaction: PipelineEvent, Hashable {
    public static let schema = "iap.unmatched.v1"

    public private(set) var schema: String = Self.schema
    /// The transaction, its lifecycle context and the publisher's hints.
    public var verified: VerifiedTransaction
    /// When match first saw it waiting.
    public var since: Timestamp
    /// When match gave up.
    public var unmatchedAt: Timestamp
    public var reason: UnmatchedReason

    public init(verified: VerifiedTransaction, since: Timestamp, unmatchedAt: Timestamp, reason: UnmatchedReason) {
        self.verified = verified
        self.since = since
        self.unmatchedAt = unmatchedAt
        self.reason = reason
    }

    public var partitionKey: String { self.verified.partitionKey }
}

/// Why a transaction ended in `iap.unmatched`.
public struct UnmatchedReason: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// No order (by token or orderId), no ownership binding and no userId hint within the window.
    public static let noOrderOrUser = Self(rawValue: "no_order_or_user")
}
