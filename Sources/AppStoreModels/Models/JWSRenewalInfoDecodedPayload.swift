public import Basics
public import Foundation

/// Whether an auto-renewable subscription renews at the end of the period.
public struct AutoRenewStatus: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let off = AutoRenewStatus(rawValue: 0)
    public static let on = AutoRenewStatus(rawValue: 1)
}

/// Why a subscription expired.
public struct ExpirationIntent: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let customerCancelled = ExpirationIntent(rawValue: 1)
    public static let billingError = ExpirationIntent(rawValue: 2)
    public static let customerDidNotConsentToPriceIncrease = ExpirationIntent(rawValue: 3)
    public static let productNotAvailable = ExpirationIntent(rawValue: 4)
    public static let other = ExpirationIntent(rawValue: 5)
}

/// Whether the customer responded to a price increase.
public struct PriceIncreaseStatus: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let customerHasNotResponded = PriceIncreaseStatus(rawValue: 0)
    public static let customerConsentedOrWasNotified = PriceIncreaseStatus(rawValue: 1)
}

/// Subscription renewal state as Apple signs it (`JWSRenewalInfoDecodedPayload`).
public struct JWSRenewalInfoDecodedPayload: SignedPayload, Hashable {
    public var originalTransactionId: String?
    public var productId: String?
    public var autoRenewProductId: String?
    public var autoRenewStatus: AutoRenewStatus?
    public var expirationIntent: ExpirationIntent?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Timestamp?
    public var priceIncreaseStatus: PriceIncreaseStatus?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: OfferDiscountType?
    public var offerPeriod: String?
    public var signedDate: Timestamp?
    public var environment: AppStoreEnvironment?
    public var recentSubscriptionStartDate: Timestamp?
    public var renewalDate: Timestamp?
    public var currency: String?
    /// Price of the next renewal in milliunits of `currency`.
    public var renewalPrice: Int64?
    public var eligibleWinBackOfferIds: [String]?
    /// Kept as the raw string: a malformed token must not make the whole payload undecodable.
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var renewalBillingPlanType: BillingPlanType?
    /// For a subscription with a commitment: what it renews into when the commitment ends.
    public var commitmentInfo: RenewalCommitmentInfo?
    /// For an Advanced Commerce API subscription: the next renewal's SKUs and descriptors.
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?

    public init() {}

    public var signingDate: Timestamp? { self.signedDate }

    /// `appAccountToken` when it is a well-formed UUID.
    public var appAccountTokenUUID: UUID? { self.appAccountToken.flatMap(UUID.init(uuidString:)) }
}
