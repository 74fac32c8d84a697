public import Basics

/// Which rule tied a transaction to its user (`matchedBy` in `iap.entitlement.v1`).
public struct MatchedBy: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The Apple-signed `appAccountToken` led to an order or, through a token scheme, a user.
    public static let appAccountToken = Self(rawValue: "appAccountToken")
    /// The publisher's orderId hint, confirmed by the order's user and product.
    public static let orderId = Self(rawValue: "orderId")
    /// The publisher's userId hint.
    public static let user = Self(rawValue: "user")
    /// The user this originalTransactionId was bound to earlier (renewals, refunds, notifications).
    public static let ownership = Self(rawValue: "ownership")
}

/// Something a consumer of the entitlement should know although the match succeeded
/// (`warnings` in `iap.entitlement.v1`).
public struct MatchWarning: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The order was already claimed by another transaction; this one is granted anyway
    /// because the customer paid for it.
    public static let orderAlreadyClaimed = Self(rawValue: "order_already_claimed")
    /// The publisher's orderId hint named an order whose user or product disagree; ignored.
    public static let orderHintMismatch = Self(rawValue: "order_hint_mismatch")
    /// The publisher's userId hint differs from the user Apple's data led to.
    public static let userHintMismatch = Self(rawValue: "user_hint_mismatch")
    /// A hash token scheme (`md5ForwardReversed`, `md5UserAndBundle`) is configured and the
    /// signed token is not the one derived from the matched user.
    public static let appAccountTokenMismatch = Self(rawValue: "app_account_token_mismatch")
    /// The signed token or orderId hint named an order that did not arrive within the order
    /// grace; matched by ownership or the publisher's userId instead.
    public static let orderNeverArrived = Self(rawValue: "order_never_arrived")
}
