public import AppStoreModels

/// A Server API call that did not produce data. ``outcome`` says what to do next (never
/// ``AppleOutcome/ok``); the rest is diagnostic.
public struct AppStoreAPIError: Error, Sendable, CustomStringConvertible {
    public var outcome: AppleOutcome
    /// The environment the last attempt went to.
    public var environment: AppStoreEnvironment
    public var httpStatus: Int?
    /// Apple's `errorCode`, when the body had one.
    public var apiErrorCode: Int64?

    public init(
        outcome: AppleOutcome, environment: AppStoreEnvironment, httpStatus: Int? = nil, apiErrorCode: Int64? = nil
    ) {
        self.outcome = outcome
        self.environment = environment
        self.httpStatus = httpStatus
        self.apiErrorCode = apiErrorCode
    }

    public var description: String {
        "App Store Server API (\(self.environment)) HTTP \(self.httpStatus.map(String.init) ?? "-")"
            + " errorCode \(self.apiErrorCode.map(String.init) ?? "-"): \(self.outcome)"
    }
}

/// A successful answer and the environment that gave it.
public struct AppStoreAPIResponse<Value: Sendable>: Sendable {
    public var value: Value
    public var environment: AppStoreEnvironment

    public init(value: Value, environment: AppStoreEnvironment) {
        self.value = value
        self.environment = environment
    }
}
