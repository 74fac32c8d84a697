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
    static let rateLimitExceeded = AppleAPIError(errorCode: 4_290_000, errorMessage: "Rate limit exceeded.")
    static let generalInternalRetryable = AppleAPIError(
        errorCode: 5_000_001, errorMessage: "An unknown error occurred. Please try again."
    )
}

extension AppleAPIError: HTTPResponseError {
    func response(from request: Request, context: some RequestContext) throws -> Response { try response() }
}
