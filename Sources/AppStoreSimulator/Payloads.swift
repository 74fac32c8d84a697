/// Apple's signed payload shapes, as the simulator produces them.
///
/// Field names are Apple's exactly (`JWSTransactionDecodedPayload`, `JWSRenewalInfoDecodedPayload`,
/// `ResponseBodyV2DecodedPayload` in Apple's docs); dates are milliseconds since 1970. Optional
/// fields are left out of the JSON when nil, as Apple leaves them out. The types are prefixed
/// `Simulated…` so they never collide with the `AppStoreModels` module's decoded models.

/// A transaction as Apple signs it (`JWSTransactionDecodedPayload`).
public struct SimulatedTransactionPayload: Codable, Hashable, Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var webOrderLineItemId: String?
    public var bundleId: String
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Int64
    public var originalPurchaseDate: Int64
    public var expiresDate: Int64?
    public var quantity: Int
    public var type: String
    public var appAccountToken: String?
    public var inAppOwnershipType: String
    public var signedDate: Int64
    public var revocationReason: Int?
    public var revocationDate: Int64?
    public var revocationType: String?
    public var isUpgraded: Bool?
    public var environment: String
    public var storefront: String
    public var storefrontId: String
    public var transactionReason: String
    public var currency: String
    public var price: Int64
    public var appTransactionId: String
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back; nil without an offer.
    public var offerType: Int?
    public var offerIdentifier: String?
}

/// Subscription renewal state as Apple signs it (`JWSRenewalInfoDecodedPayload`).
public struct SimulatedRenewalInfoPayload: Codable, Hashable, Sendable {
    public var originalTransactionId: String
    public var productId: String
    public var autoRenewProductId: String
    /// 1 on, 0 off.
    public var autoRenewStatus: Int
    /// 1 cancelled by the customer, 2 billing error, ...; present once the subscription expired.
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?
    /// Until when the customer keeps access while Apple retries billing (a grace period).
    public var gracePeriodExpiresDate: Int64?
    public var signedDate: Int64
    public var environment: String
    public var recentSubscriptionStartDate: Int64
    public var renewalDate: Int64?
    public var currency: String
    public var renewalPrice: Int64
    public var appAccountToken: String?
    public var appTransactionId: String
}

/// An App Store Server Notification V2 as Apple signs it (`ResponseBodyV2DecodedPayload`).
public struct SimulatedNotificationPayload: Codable, Hashable, Sendable {
    /// The `data` object: which app and environment, and the signed transaction and renewal info.
    public struct Data: Codable, Hashable, Sendable {
        public var appAppleId: Int64?
        public var bundleId: String
        public var bundleVersion: String?
        public var environment: String
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
        /// Subscription status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int?
        /// CONSUMPTION_REQUEST only: why the customer asked for a refund.
        public var consumptionRequestReason: String?
    }

    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    public var data: Data
    public var version: String
    public var signedDate: Int64
}

/// Apple's string constants the simulator emits, kept in one place so spelling errors show.
public enum AppleValues {
    public enum ProductType {
        public static let consumable = "Consumable"
        public static let nonConsumable = "Non-Consumable"
        public static let autoRenewable = "Auto-Renewable Subscription"
        public static let nonRenewing = "Non-Renewing Subscription"
        public static let all = [consumable, nonConsumable, autoRenewable, nonRenewing]
    }

    public enum Environment {
        public static let sandbox = "Sandbox"
        public static let production = "Production"
    }

    public enum OwnershipType {
        public static let purchased = "PURCHASED"
        public static let familyShared = "FAMILY_SHARED"
    }

    public enum NotificationType {
        public static let subscribed = "SUBSCRIBED"
        public static let didRenew = "DID_RENEW"
        public static let expired = "EXPIRED"
        public static let refund = "REFUND"
        public static let revoke = "REVOKE"
        public static let oneTimeCharge = "ONE_TIME_CHARGE"
        public static let didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
        public static let didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
        public static let test = "TEST"
        public static let consumptionRequest = "CONSUMPTION_REQUEST"
        public static let didFailToRenew = "DID_FAIL_TO_RENEW"
        public static let gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
        public static let renewalExtended = "RENEWAL_EXTENDED"
    }

    public enum Subtype {
        public static let initialBuy = "INITIAL_BUY"
        public static let upgrade = "UPGRADE"
        public static let voluntary = "VOLUNTARY"
        public static let autoRenewEnabled = "AUTO_RENEW_ENABLED"
        public static let autoRenewDisabled = "AUTO_RENEW_DISABLED"
        public static let gracePeriod = "GRACE_PERIOD"
        public static let billingRecovery = "BILLING_RECOVERY"
    }
}

/// The AppTransaction Apple signs for the customer of an app (Get App Transaction Info): the
/// app's own purchase, as StoreKit's `AppTransaction.shared` shows it on the device.
struct SimulatedAppTransactionPayload: Codable, Sendable, Equatable {
    var receiptType: String
    var appAppleId: Int64
    var bundleId: String
    var applicationVersion: String
    var versionExternalIdentifier: Int64
    var receiptCreationDate: Int64
    var originalPurchaseDate: Int64
    var originalApplicationVersion: String
    var appTransactionId: String
    var originalPlatform: String
}

/// A request of Extend Renewal Dates for All Active Subscribers, as its status reports it.
struct MassExtension: Sendable {
    var requestIdentifier: String
    var productId: String
    var completeDate: Int64
    var succeededCount: Int
    var failedCount: Int
}
