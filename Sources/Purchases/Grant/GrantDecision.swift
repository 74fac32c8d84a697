public import Basics
public import Contracts

/// What grant decided about one matched transaction.
///
/// Two phases so no change is lost: publish ``changes`` to `iap.entitlements`, and only after
/// Kafka acknowledged them call ``GrantRules/commit(_:)``. A crash in between decides the same
/// changes again, with the same eventIds, which consumers dedupe on.
public struct GrantDecision: Hashable, Sendable {
    /// Effective changes, in order (an upgrade revokes the old product before granting the new).
    public var changes: [EntitlementChange]
    /// The state to save once the changes are published; nil when nothing changed. Never nil
    /// with changes: it counts them, so no number is handed out twice (decision D48).
    public var newState: EntitlementState?
    /// Why nothing changed, when ``changes`` is empty.
    public var ignored: GrantIgnoreReason?

    public init(changes: [EntitlementChange], newState: EntitlementState?, ignored: GrantIgnoreReason? = nil) {
        self.changes = changes
        self.newState = newState
        self.ignored = ignored
    }

    /// The events to publish.
    public var events: [EntitlementEvent] { self.changes.map(\.event) }
}

/// One effective change and the key it is deduplicated on.
public struct EntitlementChange: Hashable, Sendable {
    public var effect: EntitlementEffect
    /// `<transactionId>|<effect>`, with Apple's date of the change where it can repeat
    /// (``BusinessKeys/effectKey(transactionId:effect:date:)``).
    public var idempotencyKey: String
    public var event: EntitlementEvent

    public init(effect: EntitlementEffect, idempotencyKey: String, event: EntitlementEvent) {
        self.effect = effect
        self.idempotencyKey = idempotencyKey
        self.event = event
    }
}

/// Why a matched transaction changed nothing.
public struct GrantIgnoreReason: Hashable, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The same change was applied before (a second delivery of the same purchase).
        public static let alreadyApplied = Code(rawValue: "already_applied")
        /// Older than what the state already reflects (Apple's deliveries are unordered).
        public static let outOfOrder = Code(rawValue: "out_of_order")
        /// Revocation or expiry of something never granted; recorded so a late grant stays off.
        public static let neverGranted = Code(rawValue: "never_granted")
        /// A lifecycle notification that changes no entitlement (renewal preference, price…).
        public static let noChange = Code(rawValue: "no_change")
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
    public var description: String { "\(self.code.rawValue): \(self.detail)" }
}
