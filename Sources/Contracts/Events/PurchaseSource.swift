public import Basics

/// Where a purchase came from (`source` in `iap.entitlement.v1`).
public struct PurchaseSource: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// StoreKit 2: a signed transaction, or its bare transaction id.
    public static let storeKit2 = Self(rawValue: "storekit2")
    /// StoreKit 1: an app receipt or a `transactionReceipt`.
    public static let storeKit1 = Self(rawValue: "storekit1")
    /// An App Store Server Notification V2.
    public static let notification = Self(rawValue: "notification")
    /// A backfill from Apple's histories (`iap reconcile`).
    public static let reconcile = Self(rawValue: "reconcile")

    /// The values a publisher may claim; `notification` is only ever set by intake.
    package static let publisherValues: Set<PurchaseSource> = [.storeKit2, .storeKit1, .reconcile]
}
