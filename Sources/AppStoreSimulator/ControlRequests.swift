/// Bodies of the control API (`/sim/v1`), the contract in docs/simulator.md.

/// `POST /sim/v1/purchases`.
///
/// Beyond the contract's fields, `subscriptionGroupIdentifier`, `price` and `currency` may be
/// given. An auto-renewable purchase with the same `appAccountToken` and group as an active
/// subscription of another product is an upgrade: it continues that subscription's
/// `originalTransactionId` and marks the replaced transaction `isUpgraded`.
struct PurchaseRequest: Decodable, Sendable {
    var bundleId: String?
    var productId: String
    var type: String
    var quantity: Int?
    var appAccountToken: String?
    var environment: String?
    var inAppOwnershipType: String?
    var expiresInSeconds: Double?
    var subscriptionGroupIdentifier: String?
    var price: Int64?
    var currency: String?
    /// False: the purchase's notification is in history but every delivery attempt fails.
    var deliver: Bool?
}

/// A transaction the control API created: the contract's fields plus the order id (for
/// `GET /inApps/v1/lookup/{orderId}`) and the notification Apple sent about it.
struct TransactionResponse: Encodable, Sendable {
    var transactionId: String
    var originalTransactionId: String
    var signedTransaction: String
    var appReceipt: String
    var transactionReceipt: String
    var orderId: String
    var signedPayload: String
}

/// `POST /sim/v1/subscriptions/{originalTransactionId}/auto-renew` (beyond the contract).
struct AutoRenewRequest: Decodable, Sendable {
    var enabled: Bool
}

/// `POST /sim/v1/subscriptions/{originalTransactionId}/renew`; the body is optional.
struct RenewRequest: Decodable, Sendable {
    /// false: the DID_RENEW is lost on the way (history shows its failed attempts); default true.
    var deliver: Bool?
}

/// `POST /sim/v1/subscriptions/{originalTransactionId}/expire`; the body is optional.
/// `POST /sim/v1/subscriptions/{originalTransactionId}/fail-renewal` (beyond the contract).
struct FailRenewalRequest: Decodable, Sendable {
    /// A billing grace period of this many seconds from the period's end; none when omitted.
    var gracePeriodSeconds: Double?
}

struct ExpireRequest: Decodable, Sendable {
    /// false: expire silently, with no notification (default true).
    var notify: Bool?
}

/// Responses that only carry the notification (`expire`, `refund`, `revoke`); a silent expiry
/// has none.
struct NotificationResponse: Encodable, Sendable {
    var signedPayload: String?
}
