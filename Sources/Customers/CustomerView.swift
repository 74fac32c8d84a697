public import AppStoreModels
public import Contracts
public import ProductCatalog

/// What a customer has in one app at one moment: the answer of
/// `GET /v1/apps/{bundleId}/customers/{userId}`, rendered from a ``CustomerRecord`` and the
/// product catalog at read time.
public struct CustomerView: Codable, Hashable, Sendable {
    public var bundleId: String
    public var userId: String
    /// Access levels the customer has or is about to lose (billing retry), one per id.
    public var entitlements: [Entitlement]
    /// Non-consumable and non-renewing purchases, revoked and expired ones included.
    public var purchases: [OneTimePurchase]
    /// Per currency of the catalog's consumables: what purchases credited and what refunds
    /// took back. Spending is the backend's; the balance is received − revoked − spent.
    public var credits: [String: Credit]
    /// The change the record reflects last (``CustomerRecord/lastApplied``).
    public var lastEventId: String?
    /// Products the catalog does not list, granted under their own id (docs/catalog.md).
    public var unlistedProducts: [String]

    public struct Entitlement: Codable, Hashable, Sendable {
        public var id: String
        public var productId: String
        public var since: Timestamp?
        /// When access ends unless renewed (a grace period's end while in one); nil for good.
        public var expiresDate: Timestamp?
        /// `active`, `gracePeriod` (access kept while Apple retries billing) or `billingRetry`
        /// (no access while Apple retries billing).
        public var status: EntitlementStatus
        public var hasAccess: Bool
        /// Apple's auto-renew status for a subscription; nil for one-time purchases.
        public var willRenew: Bool?
        public var environment: AppStoreEnvironment
        public var originalTransactionId: String
    }

    public struct OneTimePurchase: Codable, Hashable, Sendable {
        public var productId: String
        public var productType: ProductType?
        public var transactionId: String
        public var originalTransactionId: String
        public var purchaseDate: Timestamp?
        public var expiresDate: Timestamp?
        /// `active`, `expired` (a non-renewing subscription past its end) or `revoked`.
        public var status: EntitlementStatus
        public var environment: AppStoreEnvironment
    }

    public struct Credit: Codable, Hashable, Sendable {
        public var received: Int
        public var revoked: Int

        public init(received: Int, revoked: Int) {
            self.received = received
            self.revoked = revoked
        }
    }
}
