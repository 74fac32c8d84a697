public import AppStoreModels
public import Basics

/// Filters of Get Transaction History v2; `revision` is handled by the client's paging.
public struct TransactionHistoryRequest: Hashable, Sendable {
    public struct Order: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let ascending = Self(rawValue: "ASCENDING")
        public static let descending = Self(rawValue: "DESCENDING")
    }

    public struct HistoryProductType: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let autoRenewable = Self(rawValue: "AUTO_RENEWABLE")
        public static let nonRenewable = Self(rawValue: "NON_RENEWABLE")
        public static let consumable = Self(rawValue: "CONSUMABLE")
        public static let nonConsumable = Self(rawValue: "NON_CONSUMABLE")
    }

    /// Includes transactions with `startDate <= purchaseDate < endDate`.
    public var startDate: Timestamp?
    public var endDate: Timestamp?
    public var productIds: [String]
    public var productTypes: [HistoryProductType]
    public var sort: Order?
    public var subscriptionGroupIdentifiers: [String]
    public var inAppOwnershipType: InAppOwnershipType?
    public var revoked: Bool?

    public init(
        startDate: Timestamp? = nil,
        endDate: Timestamp? = nil,
        productIds: [String] = [],
        productTypes: [HistoryProductType] = [],
        sort: Order? = nil,
        subscriptionGroupIdentifiers: [String] = [],
        inAppOwnershipType: InAppOwnershipType? = nil,
        revoked: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// Query items in a stable order; repeated parameters stay repeated, as Apple expects.
    func queryItems(revision: String?) -> [(String, String)] {
        var items: [(String, String)] = []
        if let revision { items.append(("revision", revision)) }
        if let startDate { items.append(("startDate", String(startDate.millisecondsSince1970))) }
        if let endDate { items.append(("endDate", String(endDate.millisecondsSince1970))) }
        items += self.productIds.map { ("productId", $0) }
        items += self.productTypes.map { ("productType", $0.rawValue) }
        if let sort { items.append(("sort", sort.rawValue)) }
        items += self.subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType.rawValue)) }
        if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
        return items
    }
}

/// Consumption data for a refund request (Send Consumption Information v2).
public struct ConsumptionRequest: Codable, Hashable, Sendable {
    public struct DeliveryStatus: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let delivered = Self(rawValue: "DELIVERED")
        public static let undeliveredQualityIssue = Self(rawValue: "UNDELIVERED_QUALITY_ISSUE")
        public static let undeliveredWrongItem = Self(rawValue: "UNDELIVERED_WRONG_ITEM")
        public static let undeliveredServerOutage = Self(rawValue: "UNDELIVERED_SERVER_OUTAGE")
        public static let undeliveredOther = Self(rawValue: "UNDELIVERED_OTHER")
    }

    public struct RefundPreference: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let decline = Self(rawValue: "DECLINE")
        public static let grantFull = Self(rawValue: "GRANT_FULL")
        public static let grantProrated = Self(rawValue: "GRANT_PRORATED")
    }

    public var customerConsented: Bool
    public var sampleContentProvided: Bool
    public var deliveryStatus: DeliveryStatus
    /// Consumed share in milliunits (0–100000).
    public var consumptionPercentage: Int32?
    public var refundPreference: RefundPreference?

    public init(
        customerConsented: Bool,
        sampleContentProvided: Bool,
        deliveryStatus: DeliveryStatus,
        consumptionPercentage: Int32? = nil,
        refundPreference: RefundPreference? = nil
    ) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }
}
