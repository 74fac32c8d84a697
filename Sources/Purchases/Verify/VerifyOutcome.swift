public import AppStore
public import Basics
public import Contracts

/// What the verify stage decided about one request. Retry versus reject is the case itself.
public enum VerifyOutcome: Sendable, Hashable {
    /// Publish these to `iap.verified` (one per transaction; receipts may hold several).
    case verified([VerifiedTransaction])
    /// Try the whole request again, no earlier than `after` (Apple's Retry-After is a floor):
    /// Apple answered, and the answer was a failure worth another attempt.
    case retry(after: Duration, reason: RetryReason)
    /// Apple was not asked, or asked us to slow down (429): the request waits for the slot the
    /// gate booked for its call and comes back holding it. Not a failed attempt.
    case wait(GateSlot)
    /// Write to `iap.rejected` with a contract reason code.
    case reject(Rejection)
    /// Nothing to verify or forward (a TEST notification, an empty receipt).
    case skip(SkipReason)
}

/// Why a request was verified but produced nothing.
public struct SkipReason: Hashable, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A genuine notification with no `data.signedTransactionInfo`: TEST, summaries,
        /// external purchase tokens, app-level notifications.
        public static let notificationWithoutTransaction = Code(rawValue: "notification_without_transaction")
        /// An app receipt without in-app purchase records (finished consumables are dropped
        /// from receipts, so this is not an error).
        public static let receiptWithoutPurchases = Code(rawValue: "receipt_without_purchases")
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
