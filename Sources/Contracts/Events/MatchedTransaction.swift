/// Match → grant (`iap.matched.v1` on `iap.matched`, key: originalTransactionId).
///
/// A verified transaction and the user it belongs to. Field reference: docs/events.md.
public struct MatchedTransaction: PipelineEvent, Hashable {
    public static let schema = "iap.matched.v1"

    public private(set) var schema: String = Self.schema
    /// The record as match received it.
    public var verified: VerifiedTransaction
    public var userId: String
    /// Set when matched through an order (by token or confirmed orderId hint).
    public var orderId: String?
    public var matchedBy: MatchedBy
    public var warnings: [MatchWarning]

    public init(
        verified: VerifiedTransaction, userId: String, orderId: String?, matchedBy: MatchedBy,
        warnings: [MatchWarning] = []
    ) {
        self.verified = verified
        self.userId = userId
        self.orderId = orderId
        self.matchedBy = matchedBy
        self.warnings = warnings
    }

    public var transaction: TransactionDetails { self.verified.transaction }

    public var partitionKey: String { self.verified.partitionKey }

    // idempotencyKey: BusinessKeys.swift.
}
