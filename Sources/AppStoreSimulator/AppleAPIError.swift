import Hummingbird

/// An App Store Server API error body, `{"errorCode": 4040010, "errorMessage": "..."}`.
///
/// The HTTP status is the code's prefix (4040010 → 404), as Apple's API does.
struct AppleAPIError: Error, Encodable, Sendable {
    let errorCode: Int
    let errorMessage: String

    var status: HTTPResponse.Status { .init(code: errorCode / 10_000) }

    func response(headers: HTTPFields = [:]) throws -> Response {
        try JSONResponse.make(status: status, body: self, headers: headers)
    }

    static let generalBadRequest = AppleAPIError(errorCode: 4_000_000, errorMessage: "Bad request.")
    static let invalidTransactionId = AppleAPIError(errorCode: 4_000_006, errorMessage: "Invalid transaction id.")
    static let invalidRevision = AppleAPIError(errorCode: 4_000_005, errorMessage: "Invalid request revision.")
    static let invalidPaginationToken = AppleAPIError(errorCode: 4_000_014, errorMessage: "Invalid pagination token.")
    static let multipleFilters = AppleAPIError(
        errorCode: 4_000_019,
        errorMessage: "Invalid request. Supply either a transaction id or a notification type, but not both."
    )
    static let accountNotFoundRetryable = AppleAPIError(
        errorCode: 4_040_002, errorMessage: "Account not found. Please try again."
    )
    static let testNotificationNotFound = AppleAPIError(
        errorCode: 4_040_008,
        errorMessage:
            "Either the test notification token is expired or the notification and status are not yet available."
    )
    static let transactionIdNotFound = AppleAPIError(errorCode: 4_040_010, errorMessage: "Transaction id not found.")
    static let appTransactionDoesNotExist = AppleAPIError(
        errorCode: 4_040_019, errorMessage: "No AppTransaction exists for the customer.")
    static let statusRequestNotFound = AppleAPIError(
        errorCode: 4_040_009, errorMessage: "The server didn't find a subscription-renewal-date extension request.")
    static let invalidExtendByDays = AppleAPIError(errorCode: 4_000_009, errorMessage: "Invalid extend by days value.")
    static let invalidExtendReasonCode = AppleAPIError(
        errorCode: 4_000_010, errorMessage: "Invalid extend reason code.")
    static let invalidRequestIdentifier = AppleAPIError(
        errorCode: 4_000_011, errorMessage: "Invalid request identifier.")
    static let invalidAppAccountTokenUUID = AppleAPIError(
        errorCode: 4_000_183, errorMessage: "Invalid appAccountToken: not a UUID.")
    static let familyTransactionNotSupported = AppleAPIError(
        errorCode: 4_000_185, errorMessage: "Family-shared transactions are not supported.")
    static let transactionIdNotOriginalTransactionId = AppleAPIError(
        errorCode: 4_000_187, errorMessage: "The transaction id is not an original transaction id.")
    static let subscriptionExtensionIneligible = AppleAPIError(
        errorCode: 4_030_004, errorMessage: "Subscription extension ineligible.")
    static let subscriptionMaxExtension = AppleAPIError(
        errorCode: 4_030_005, errorMessage: "The subscription has been extended the maximum number of times.")
    static let familySharedSubscriptionExtensionIneligible = AppleAPIError(
        errorCode: 4_030_007, errorMessage: "Family-shared subscriptions are ineligible for extensions.")
    static let rateLimitExceeded = AppleAPIError(errorCode: 4_290_000, errorMessage: "Rate limit exceeded.")
    static let generalInternalRetryable = AppleAPIError(
        errorCode: 5_000_001, errorMessage: "An unknown error occurred. Please try again."
    )
}

extension AppleAPIError: HTTPResponseError {
    func response(from request: Request, context: some RequestContext) throws -> Response { try response() }
}
