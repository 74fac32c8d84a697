public import AppStoreModels

/// `iap support refunds` and `iap support history`: every transaction of every page, checked.
public struct TransactionListReport: Encodable, Sendable {
    /// The transaction id asked about.
    public var transactionId: String
    /// The environment that answered (production first, then sandbox when it does not know the id).
    public var environment: AppStoreEnvironment
    /// Pages read (Apple gives at most 20 transactions per page).
    public var pages: Int
    public var transactions: [CheckedTransaction]
}

/// `iap support status`: Get All Subscription Statuses, checked.
public struct SubscriptionStatusReport: Encodable, Sendable {
    public struct Group: Encodable, Sendable {
        public var subscriptionGroupIdentifier: String?
        public var subscriptions: [Subscription]
    }

    public struct Subscription: Encodable, Sendable {
        /// `active`, `expired`, `billingRetry`, `billingGracePeriod`, `revoked`, or `status <n>`.
        public var status: String?
        /// Apple's number for it (1–5).
        public var statusCode: Int32?
        public var originalTransactionId: String?
        public var transaction: CheckedTransaction?
        public var renewal: CheckedRenewalInfo?

        init(status: String?, statusCode: Int32?, originalTransactionId: String?) {
            self.status = status
            self.statusCode = statusCode
            self.originalTransactionId = originalTransactionId
        }
    }

    public var transactionId: String
    public var environment: AppStoreEnvironment
    public var groups: [Group]

    static func statusName(_ status: SubscriptionStatus) -> String {
        switch status {
        case .active: "active"
        case .expired: "expired"
        case .billingRetry: "billingRetry"
        case .billingGracePeriod: "billingGracePeriod"
        case .revoked: "revoked"
        default: "status \(status.rawValue)"
        }
    }
}
