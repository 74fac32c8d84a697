public import AppStoreModels
public import Basics

/// `GET /inApps/v1/transactions/{transactionId}`.
public struct TransactionInfoResponse: Codable, Hashable, Sendable {
    public var signedTransactionInfo: String?
}

/// A page of signed transactions that names the next one with `revision` while `hasMore`
/// (Get Transaction History, Get Refund History).
public protocol SignedTransactionPage: Sendable {
    var signedTransactions: [String]? { get }
    var revision: String? { get }
    var hasMore: Bool? { get }
}

/// A page of `GET /inApps/v2/history/{transactionId}` (at most 20 transactions).
public struct HistoryResponse: Codable, Hashable, Sendable, SignedTransactionPage {
    /// Pass back to get the next page.
    public var revision: String?
    public var hasMore: Bool?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: AppStoreEnvironment?
    public var signedTransactions: [String]?
}

/// `GET /inApps/v1/subscriptions/{transactionId}`.
public struct StatusResponse: Codable, Hashable, Sendable {
    public var environment: AppStoreEnvironment?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [SubscriptionGroupIdentifierItem]?
}

public struct SubscriptionGroupIdentifierItem: Codable, Hashable, Sendable {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransactionsItem]?
}

public struct LastTransactionsItem: Codable, Hashable, Sendable {
    public var status: SubscriptionStatus?
    public var originalTransactionId: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
}

/// `GET /inApps/v1/lookup/{orderId}`: `status` 0 valid, 1 invalid (no transactions).
public struct OrderLookupResponse: Codable, Hashable, Sendable {
    public var status: Int32?
    public var signedTransactions: [String]?
}

/// A page of `GET /inApps/v2/refund/lookup/{transactionId}`.
public struct RefundHistoryResponse: Codable, Hashable, Sendable, SignedTransactionPage {
    public var signedTransactions: [String]?
    public var revision: String?
    public var hasMore: Bool?
}

/// Body of `POST /inApps/v1/notifications/history`. `transactionId` and `notificationType`
/// are mutually exclusive (4000019).
public struct NotificationHistoryRequest: Codable, Hashable, Sendable {
    public var startDate: Timestamp
    public var endDate: Timestamp
    public var notificationType: NotificationTypeV2?
    public var notificationSubtype: NotificationSubtype?
    public var transactionId: String?
    public var onlyFailures: Bool?

    public init(
        startDate: Timestamp,
        endDate: Timestamp,
        notificationType: NotificationTypeV2? = nil,
        notificationSubtype: NotificationSubtype? = nil,
        transactionId: String? = nil,
        onlyFailures: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}

/// A page of notification history (20 per page).
public struct NotificationHistoryResponse: Codable, Hashable, Sendable {
    public var paginationToken: String?
    public var hasMore: Bool?
    public var notificationHistory: [NotificationHistoryResponseItem]?
}

public struct NotificationHistoryResponseItem: Codable, Hashable, Sendable {
    public var signedPayload: String?
    public var sendAttempts: [SendAttemptItem]?
}

public struct SendAttemptItem: Codable, Hashable, Sendable {
    public var attemptDate: Timestamp?
    public var sendAttemptResult: SendAttemptResult?
}

/// How Apple's delivery attempt of a notification ended.
public struct SendAttemptResult: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let success = Self(rawValue: "SUCCESS")
    public static let timedOut = Self(rawValue: "TIMED_OUT")
    public static let tlsIssue = Self(rawValue: "TLS_ISSUE")
    public static let circularRedirect = Self(rawValue: "CIRCULAR_REDIRECT")
    public static let noResponse = Self(rawValue: "NO_RESPONSE")
    public static let socketIssue = Self(rawValue: "SOCKET_ISSUE")
    public static let unsupportedCharset = Self(rawValue: "UNSUPPORTED_CHARSET")
    public static let invalidResponse = Self(rawValue: "INVALID_RESPONSE")
    public static let prematureClose = Self(rawValue: "PREMATURE_CLOSE")
    public static let unsuccessfulHTTPResponseCode = Self(rawValue: "UNSUCCESSFUL_HTTP_RESPONSE_CODE")
    public static let other = Self(rawValue: "OTHER")
}

/// `POST /inApps/v1/notifications/test`.
public struct SendTestNotificationResponse: Codable, Hashable, Sendable {
    public var testNotificationToken: String?
}

/// `GET /inApps/v1/notifications/test/{token}`.
public struct CheckTestNotificationResponse: Codable, Hashable, Sendable {
    public var signedPayload: String?
    public var sendAttempts: [SendAttemptItem]?
}
