public import Basics

/// The product type of a transaction (`type`).
public struct ProductType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let autoRenewableSubscription = ProductType(rawValue: "Auto-Renewable Subscription")
    public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
    public static let consumable = ProductType(rawValue: "Consumable")
    public static let nonRenewingSubscription = ProductType(rawValue: "Non-Renewing Subscription")
    /// Not one of Apple's: the app's own purchase, which this pipeline reads from a signed
    /// AppTransaction (a paid app, a pre-order; decision D58).
    public static let app = ProductType(rawValue: "App")
}

/// Whether the customer bought the product or gets it through Family Sharing.
public struct InAppOwnershipType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let purchased = InAppOwnershipType(rawValue: "PURCHASED")
    public static let familyShared = InAppOwnershipType(rawValue: "FAMILY_SHARED")
}

/// Why a transaction exists: a customer purchase or an automatic renewal.
public struct TransactionReason: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let purchase = TransactionReason(rawValue: "PURCHASE")
    public static let renewal = TransactionReason(rawValue: "RENEWAL")
}

/// Why Apple refunded or revoked a transaction (`revocationReason`).
public struct RevocationReason: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let refundedForOtherReason = RevocationReason(rawValue: 0)
    public static let refundedDueToIssue = RevocationReason(rawValue: 1)
}

/// How a transaction was revoked (`revocationType`).
public struct RevocationType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let refundFull = RevocationType(rawValue: "REFUND_FULL")
    public static let refundProrated = RevocationType(rawValue: "REFUND_PRORATED")
    public static let familyRevoke = RevocationType(rawValue: "FAMILY_REVOKE")
}

/// The kind of offer applied to a transaction or renewal (`offerType`).
public struct OfferType: OpenEnumeration {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let introductoryOffer = OfferType(rawValue: 1)
    public static let promotionalOffer = OfferType(rawValue: 2)
    public static let offerCode = OfferType(rawValue: 3)
    public static let winBackOffer = OfferType(rawValue: 4)
}

/// The payment mode of an offer (`offerDiscountType`).
public struct OfferDiscountType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let freeTrial = OfferDiscountType(rawValue: "FREE_TRIAL")
    public static let payAsYouGo = OfferDiscountType(rawValue: "PAY_AS_YOU_GO")
    public static let payUpFront = OfferDiscountType(rawValue: "PAY_UP_FRONT")
    public static let oneTime = OfferDiscountType(rawValue: "ONE_TIME")
}

/// The billing plan of a subscription with a commitment (API 1.21).
public struct BillingPlanType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let billedUpfront = BillingPlanType(rawValue: "BILLED_UPFRONT")
    public static let monthly = BillingPlanType(rawValue: "MONTHLY")
}
