public import AppStore
public import AppStoreModels
public import Basics

/// What grant does about one `CONSUMPTION_REQUEST`: send this answer, or nothing and why.
public enum ConsumptionPlan: Hashable, Sendable {
    case send(ConsumptionRequest, transactionId: String, environment: AppStoreEnvironment)
    case skip(ConsumptionSkipReason)
}

/// Why a consumption request is not answered. Each code is a label of
/// `iap_consumption_skipped_total`.
public struct ConsumptionSkipReason: Hashable, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `IAP_CONSUMPTION_CUSTOMER_CONSENTED` is false: Apple asks for no answer then.
        public static let noConsent = Code(rawValue: "no_consent")
        /// Signed more than 12 hours ago: Apple decided without us.
        public static let windowClosed = Code(rawValue: "window_closed")
        /// Grant holds no state for the purchase: the pipeline delivered nothing it could report.
        public static let unknownPurchase = Code(rawValue: "unknown_purchase")
        /// An answer for this transaction went out within the window already (a retry after
        /// Apple's 202, or Apple repeating the request under a new notificationUUID).
        public static let alreadyAnswered = Code(rawValue: "already_answered")
        /// Xcode or local-testing data: there is no Apple to answer.
        public static let notApple = Code(rawValue: "not_apple")

        public static let all: [Code] = [.noConsent, .windowClosed, .unknownPurchase, .alreadyAnswered, .notApple]
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
