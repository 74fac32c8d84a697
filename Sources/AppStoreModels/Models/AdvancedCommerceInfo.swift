/// The Advanced Commerce API's part of a transaction (`advancedCommerceInfo`), for apps that sell
/// SKUs they define at purchase time: Apple's `AdvancedCommerceTransactionInfo`. Periods,
/// reasons and statuses stay Apple's strings, so a value Apple adds never fails a decode.
public struct AdvancedCommerceTransactionInfo: Codable, Hashable, Sendable {
    public var descriptors: AdvancedCommerceDescriptors?
    /// In milliunits of the transaction's currency.
    public var estimatedTax: Int64?
    public var items: [AdvancedCommerceTransactionItem]?
    /// ISO 8601 duration (`P1M`).
    public var period: String?
    public var requestReferenceId: String?
    public var taxCode: String?
    public var taxExclusivePrice: Int64?
    public var taxRate: String?
}

/// One SKU of an Advanced Commerce transaction (`SKU` in Apple's JSON).
public struct AdvancedCommerceTransactionItem: Codable, Hashable, Sendable {
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    public var price: Int64?
    public var refunds: [AdvancedCommerceRefund]?
    public var revocationDate: Timestamp?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description, displayName, offer, price, refunds, revocationDate
    }
}

/// The Advanced Commerce API's part of a subscription's renewal info: Apple's
/// `AdvancedCommerceRenewalInfo`.
public struct AdvancedCommerceRenewalInfo: Codable, Hashable, Sendable {
    public var consistencyToken: String?
    public var descriptors: AdvancedCommerceDescriptors?
    public var items: [AdvancedCommerceRenewalItem]?
    public var period: String?
    public var requestReferenceId: String?
    public var taxCode: String?
}

/// One SKU of an Advanced Commerce subscription's next renewal.
public struct AdvancedCommerceRenewalItem: Codable, Hashable, Sendable {
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    public var price: Int64?
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description, displayName, offer, price, priceIncreaseInfo
    }
}

public struct AdvancedCommerceDescriptors: Codable, Hashable, Sendable {
    public var description: String?
    public var displayName: String?
}

/// A discount on an Advanced Commerce SKU.
public struct AdvancedCommerceOffer: Codable, Hashable, Sendable {
    /// ISO 8601 duration of one offer period.
    public var period: String?
    public var periodCount: Int32?
    public var price: Int64?
    /// `ACQUISITION`, `WIN_BACK`, `RETENTION`.
    public var reason: String?
}

public struct AdvancedCommerceRefund: Codable, Hashable, Sendable {
    public var refundAmount: Int64?
    public var refundDate: Timestamp?
    public var refundReason: String?
    /// `FULL`, `PRORATED`, `CUSTOM`.
    public var refundType: String?
}

public struct AdvancedCommercePriceIncreaseInfo: Codable, Hashable, Sendable {
    public var dependentSKUs: [String]?
    public var price: Int64?
    /// `SCHEDULED`, `PENDING`, `ACCEPTED`.
    public var status: String?
}
