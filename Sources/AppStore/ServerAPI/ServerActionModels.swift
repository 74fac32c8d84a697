public import AppStoreModels
public import Foundation

// The bodies of the Server API's calls that change something or read the app's own purchase, as
// Apple's server libraries name them (app-store-server-library 3.1, `models/`).

/// `GET /inApps/v1/transactions/appTransactions/{anyTransactionId}`.
public struct AppTransactionInfoResponse: Codable, Hashable, Sendable {
    /// A JWS of ``AppTransaction``, verified like any signed data.
    public var signedAppTransactionInfo: String?
}

/// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`.
public struct UpdateAppAccountTokenRequest: Codable, Hashable, Sendable {
    /// A UUID: Apple refuses anything else (4000183).
    public var appAccountToken: String

    public init(appAccountToken: UUID) {
        self.appAccountToken = appAccountToken.uuidString.lowercased()
    }
}

/// Why a subscription's renewal date is extended (Apple's `ExtendReasonCode`).
public enum ExtendReasonCode: Int, Codable, Hashable, Sendable, CaseIterable {
    case undeclared = 0
    case customerSatisfaction = 1
    case other = 2
    case serviceIssueOrOutage = 3
}

/// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`.
public struct ExtendRenewalDateRequest: Codable, Hashable, Sendable {
    /// 1–90 days.
    public var extendByDays: Int
    public var extendReasonCode: ExtendReasonCode
    /// Up to 128 characters; the same identifier makes a retried request the same request.
    public var requestIdentifier: String

    public init(extendByDays: Int, extendReasonCode: ExtendReasonCode, requestIdentifier: String) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}

public struct ExtendRenewalDateResponse: Codable, Hashable, Sendable {
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var success: Bool?
    /// The new end of the current period.
    public var effectiveDate: Timestamp?
}

/// `POST /inApps/v1/subscriptions/extend/mass`: every active subscriber of one product.
public struct MassExtendRenewalDateRequest: Codable, Hashable, Sendable {
    public var extendByDays: Int
    public var extendReasonCode: ExtendReasonCode
    public var requestIdentifier: String
    public var productId: String
    /// ISO 3166-1 alpha-3 storefronts; nil for every one.
    public var storefrontCountryCodes: [String]?

    public init(
        productId: String, extendByDays: Int, extendReasonCode: ExtendReasonCode, requestIdentifier: String,
        storefrontCountryCodes: [String]? = nil
    ) {
        self.productId = productId
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
    }
}

public struct MassExtendRenewalDateResponse: Codable, Hashable, Sendable {
    public var requestIdentifier: String?
}

/// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
public struct MassExtendRenewalDateStatusResponse: Codable, Hashable, Sendable {
    public var requestIdentifier: String?
    public var complete: Bool?
    public var completeDate: Timestamp?
    public var succeededCount: Int?
    public var failedCount: Int?
}
