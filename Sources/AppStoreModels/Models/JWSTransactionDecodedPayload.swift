public import Foundation

/// A transaction as Apple signs it (`JWSTransactionDecodedPayload`).
///
/// Every field is optional because Apple omits fields that don't apply (and adds new ones);
/// callers decide which fields their product types require.
public struct JWSTransactionDecodedPayload: SignedPayload, Hashable {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Timestamp?
    public var originalPurchaseDate: Timestamp?
    public var expiresDate: Timestamp?
    public var quantity: Int32?
    public var type: ProductType?
    /// The app's own user identifier, when the app set one at purchase.
    /// Kept as the raw string: a malformed token must not make the whole payload undecodable.
    public var appAccountToken: String?
    public var inAppOwnershipType: InAppOwnershipType?
    public var signedDate: Timestamp?
    public var revocationReason: RevocationReason?
    public var revocationDate: Timestamp?
    public var revocationType: RevocationType?
    /// Refunded share in milliunits (1000 = 100 %).
    public var revocationPercentage: Int32?
    public var isUpgraded: Bool?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var environment: AppStoreEnvironment?
    /// ISO 3166-1 alpha-3 storefront code.
    public var storefront: String?
    public var storefrontId: String?
    public var transactionReason: TransactionReason?
    /// ISO 4217 currency code of `price`.
    public var currency: String?
    /// Price in milliunits of `currency` (230000 = 230 JPY).
    public var price: Int64?
    public var offerDiscountType: OfferDiscountType?
    public var appTransactionId: String?
    /// ISO 8601 duration of the offer (`P1M`).
    public var offerPeriod: String?
    public var billingPlanType: BillingPlanType?
    /// For a subscription with a commitment: which period this pays, of how many.
    public var commitmentInfo: TransactionCommitmentInfo?
    /// For an Advanced Commerce API purchase: the SKUs, descriptors, tax and refunds.
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?

    public init() {}

    public var signingDate: Timestamp? { self.signedDate }

    /// `appAccountToken` when it is a well-formed UUID.
    public var appAccountTokenUUID: UUID? { self.appAccountToken.flatMap(UUID.init(uuidString:)) }
}
