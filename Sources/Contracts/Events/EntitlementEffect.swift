public import Basics

/// A change grant can make, finer than the contract's `action`: reinstating a refunded
/// purchase is a `grant` on the topic but must not reuse the original grant's eventId.
public struct EntitlementEffect: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// First grant of a purchase, or a subscription starting again after it ended.
    public static let grant = Self(rawValue: "grant")
    /// A subscription extended by a newer period.
    public static let renew = Self(rawValue: "renew")
    public static let expire = Self(rawValue: "expire")
    public static let revoke = Self(rawValue: "revoke")
    /// A revoked transaction granted again (REFUND_REVERSED).
    public static let reinstate = Self(rawValue: "reinstate")
    /// A failed renewal with a billing grace period: access extended to the grace period's end
    /// (published as `renew`, `status: gracePeriod`; decision D31).
    public static let grace = Self(rawValue: "grace")

    /// The contract `action` this effect is published as.
    public var action: EntitlementAction {
        switch self {
        case .renew, .grace: .renew
        case .expire: .expire
        case .revoke: .revoke
        default: .grant
        }
    }

    // The key of a change and its eventId: BusinessKeys.swift.
}
