/// A transaction's place in a subscription with a commitment (a plan billed monthly for a
/// committed number of periods): Apple's `TransactionCommitmentInfo`.
public struct TransactionCommitmentInfo: Codable, Hashable, Sendable {
    /// Which billing period of the commitment this transaction pays, from 1.
    public var billingPeriodNumber: Int32?
    public var commitmentExpiresDate: Timestamp?
    /// The whole commitment's price, in milliunits of the transaction's currency.
    public var commitmentPrice: Int64?
    public var totalBillingPeriods: Int32?
}

/// What the commitment renews into: Apple's `RenewalCommitmentInfo`.
public struct RenewalCommitmentInfo: Codable, Hashable, Sendable {
    public var commitmentAutoRenewProductId: String?
    public var commitmentAutoRenewStatus: AutoRenewStatus?
    public var commitmentRenewalBillingPlanType: BillingPlanType?
    public var commitmentRenewalDate: Timestamp?
    /// In milliunits of the renewal's currency.
    public var commitmentRenewalPrice: Int64?
}
