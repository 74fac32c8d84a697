/// The user a purchase belongs to, as match bound it (`iap.ownership.v1` on the compacted
/// `iap.ownership`, key: originalTransactionId).
///
/// The durable copy of match's binding in Redis (`iap:owner:{…}`): written in the same produce as
/// every matched record, so a Redis that lost its data gets the binding back before match
/// decides again (decision D35). Compacted, not time-retained: renewals, refunds and a receipt
/// replayed by another account can come years after the purchase.
public struct OwnershipBinding: PipelineEvent, Hashable {
    public static let schema = "iap.ownership.v1"

    public private(set) var schema: String = Self.schema
    public var originalTransactionId: String
    public var userId: String

    public init(originalTransactionId: String, userId: String) {
        self.originalTransactionId = originalTransactionId
        self.userId = userId
    }

    public var partitionKey: String { self.originalTransactionId }
}
