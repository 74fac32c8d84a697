public import AppStoreModels
public import Foundation

/// Client of the App Store Server API.
///
/// Every call ends in data or an ``AppStoreAPIError`` whose ``AppStoreAPIError/outcome`` comes
/// from ``AppleOutcomeClassifier``: the caller never interprets status codes. Calls keyed by a
/// transaction id go to production first and, on 4040010 when sandbox is allowed, once to
/// sandbox (Apple's documented rule). One attempt per environment: retries belong to the
/// pipeline, which knows the budget and Apple's rate limits.
public struct AppStoreServerAPIClient: Sendable {
    public let configuration: AppStoreServerAPIConfiguration
    private let executor: any AppleHTTPExecutor
    private let tokens: BearerTokenProvider

    public init(
        configuration: AppStoreServerAPIConfiguration,
        executor: any AppleHTTPExecutor = AsyncHTTPClientExecutor()
    ) throws(ConfigurationError) {
        guard configuration.environment == .production || configuration.environment == .sandbox else {
            throw ConfigurationError(.invalidEnvironment, "the Server API exists only for Production and Sandbox")
        }
        self.configuration = configuration
        self.executor = executor
        self.tokens = try BearerTokenProvider(
            privateKeyPEM: configuration.privateKeyPEM,
            keyId: configuration.keyId,
            issuerId: configuration.issuerId,
            bundleId: configuration.bundleId
        )
    }

    /// Get Transaction Info.
    public func getTransactionInfo(transactionId: String) async throws(AppStoreAPIError) -> AppStoreAPIResponse<
        TransactionInfoResponse
    > {
        try await self.send(
            "GET", "/inApps/v1/transactions/\(Self.segment(transactionId))", as: TransactionInfoResponse.self,
            fallback: true)
    }

    /// One page of Get Transaction History v2; pass the previous page's `revision` for the next.
    public func getTransactionHistory(
        transactionId: String,
        request: TransactionHistoryRequest = .init(),
        revision: String? = nil
    ) async throws(AppStoreAPIError) -> AppStoreAPIResponse<HistoryResponse> {
        try await self.send(
            "GET", "/inApps/v2/history/\(Self.segment(transactionId))",
            query: request.queryItems(revision: revision), as: HistoryResponse.self, fallback: true
        )
    }

    /// All pages of Get Transaction History v2, following `revision` while `hasMore`. Later
    /// pages go to the environment that answered the first one.
    public func getAllTransactionHistory(
        transactionId: String,
        request: TransactionHistoryRequest = .init(),
        maximumPages: Int = 500
    ) async throws(AppStoreAPIError) -> AppStoreAPIResponse<[String]> {
        var page = try await self.getTransactionHistory(transactionId: transactionId, request: request)
        var transactions = page.value.signedTransactions ?? []
        var pages = 1
        while page.value.hasMore == true, let revision = page.value.revision, pages < maximumPages {
            page = try await self.send(
                "GET", "/inApps/v2/history/\(Self.segment(transactionId))",
                query: request.queryItems(revision: revision), as: HistoryResponse.self,
                environment: page.environment, fallback: false
            )
            transactions += page.value.signedTransactions ?? []
            pages += 1
        }
        return AppStoreAPIResponse(value: transactions, environment: page.environment)
    }

    /// Get All Subscription Statuses, optionally only those with the given statuses.
    public func getAllSubscriptionStatuses(
        transactionId: String,
        statuses: [SubscriptionStatus] = []
    ) async throws(AppStoreAPIError) -> AppStoreAPIResponse<StatusResponse> {
        try await self.send(
            "GET", "/inApps/v1/subscriptions/\(Self.segment(transactionId))",
            query: statuses.map { ("status", String($0.rawValue)) }, as: StatusResponse.self, fallback: true
        )
    }

    /// Look Up Order ID. Apple documents it for production only, so there is no fallback.
    public func lookUpOrderId(_ orderId: String) async throws(AppStoreAPIError) -> AppStoreAPIResponse<
        OrderLookupResponse
    > {
        try await self.send(
            "GET", "/inApps/v1/lookup/\(Self.segment(orderId))", as: OrderLookupResponse.self, fallback: false)
    }

    /// One page of Get Refund History v2.
    public func getRefundHistory(
        transactionId: String,
        revision: String? = nil
    ) async throws(AppStoreAPIError) -> AppStoreAPIResponse<RefundHistoryResponse> {
        try await self.send(
            "GET", "/inApps/v2/refund/lookup/\(Self.segment(transactionId))",
            query: revision.map { [("revision", $0)] } ?? [], as: RefundHistoryResponse.self, fallback: true
        )
    }

    /// One page of Get Notification History (configured environment only: history is per environment).
    public func getNotificationHistory(
        _ request: NotificationHistoryRequest,
        paginationToken: String? = nil
    ) async throws(AppStoreAPIError) -> AppStoreAPIResponse<NotificationHistoryResponse> {
        try await self.send(
            "POST", "/inApps/v1/notifications/history",
            query: paginationToken.map { [("paginationToken", $0)] } ?? [],
            body: try self.encode(request, "notification history request"),
            as: NotificationHistoryResponse.self, fallback: false
        )
    }

    /// Request a Test Notification.
    public func requestTestNotification() async throws(AppStoreAPIError) -> AppStoreAPIResponse<
        SendTestNotificationResponse
    > {
        try await self.send(
            "POST", "/inApps/v1/notifications/test", as: SendTestNotificationResponse.self, fallback: false)
    }

    /// Get Test Notification Status; 4040008 while not ready or expired.
    public func getTestNotificationStatus(token: String) async throws(AppStoreAPIError) -> AppStoreAPIResponse<
        CheckTestNotificationResponse
    > {
        try await self.send(
            "GET", "/inApps/v1/notifications/test/\(Self.segment(token))", as: CheckTestNotificationResponse.self,
            fallback: false
        )
    }

    /// Send Consumption Information v2 (202, no body).
    public func sendConsumptionInformation(
        transactionId: String,
        _ request: ConsumptionRequest
    ) async throws(AppStoreAPIError) -> AppStoreAPIResponse<Void> {
        let response = try await self.send(
            "PUT", "/inApps/v2/transactions/consumption/\(Self.segment(transactionId))",
            body: try self.encode(request, "consumption request"), as: EmptyBody.self, fallback: true
        )
        return AppStoreAPIResponse(value: (), environment: response.environment)
    }

    /// Finish Transaction (API 1.20): tells Apple the content was delivered, as the app's
    /// `transaction.finish()` would. Apple answers 200 for a transaction finished before too.
    public func finishTransaction(transactionId: String) async throws(AppStoreAPIError) -> AppStoreAPIResponse<Void> {
        let response = try await self.send(
            "POST", "/inApps/v1/transactions/\(Self.segment(transactionId))/finish", as: EmptyBody.self, fallback: true)
        return AppStoreAPIResponse(value: (), environment: response.environment)
    }

    /// Set App Account Token (API 1.16): the purchase line's transactions and its later
    /// renewals carry `token`. Not for family-shared purchases (4000185).
    public func setAppAccountToken(originalTransactionId: String, token: UUID) async throws(AppStoreAPIError)
        -> AppStoreAPIResponse<Void>
    {
        let response = try await self.send(
            "PUT", "/inApps/v1/transactions/\(Self.segment(originalTransactionId))/appAccountToken",
            body: try self.encode(UpdateAppAccountTokenRequest(appAccountToken: token), "app account token request"),
            as: EmptyBody.self, fallback: true)
        return AppStoreAPIResponse(value: (), environment: response.environment)
    }

    /// Get App Transaction Info: the signed AppTransaction of the customer of any of their
    /// transactions (or their appTransactionId).
    public func getAppTransactionInfo(anyTransactionId: String) async throws(AppStoreAPIError)
        -> AppStoreAPIResponse<AppTransactionInfoResponse>
    {
        try await self.send(
            "GET", "/inApps/v1/transactions/appTransactions/\(Self.segment(anyTransactionId))",
            as: AppTransactionInfoResponse.self, fallback: true)
    }

    /// Extend a Subscription Renewal Date.
    public func extendSubscriptionRenewalDate(
        originalTransactionId: String, _ request: ExtendRenewalDateRequest
    ) async throws(AppStoreAPIError) -> AppStoreAPIResponse<ExtendRenewalDateResponse> {
        try await self.send(
            "PUT", "/inApps/v1/subscriptions/extend/\(Self.segment(originalTransactionId))",
            body: try self.encode(request, "extension request"), as: ExtendRenewalDateResponse.self, fallback: true)
    }

    /// Extend Renewal Dates for All Active Subscribers of a product (1 a second, production).
    public func extendRenewalDateForAllActiveSubscribers(_ request: MassExtendRenewalDateRequest)
        async throws(AppStoreAPIError) -> AppStoreAPIResponse<MassExtendRenewalDateResponse>
    {
        try await self.send(
            "POST", "/inApps/v1/subscriptions/extend/mass", body: try self.encode(request, "mass extension request"),
            as: MassExtendRenewalDateResponse.self, fallback: false)
    }

    /// Get Status of Subscription Renewal Date Extensions: how a mass extension went.
    public func getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: String, productId: String)
        async throws(AppStoreAPIError) -> AppStoreAPIResponse<MassExtendRenewalDateStatusResponse>
    {
        try await self.send(
            "GET",
            "/inApps/v1/subscriptions/extend/mass/\(Self.segment(productId))/\(Self.segment(requestIdentifier))",
            as: MassExtendRenewalDateStatusResponse.self, fallback: false)
    }

    /// A request body as JSON; one that does not encode is a terminal failure naming `what`.
    private func encode(_ value: some Encodable, _ what: String) throws(AppStoreAPIError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(value))
        } catch {
            throw AppStoreAPIError(
                outcome: .terminal(TerminalReason(.requestNotEncodable, "\(what) does not encode: \(error)")),
                environment: self.configuration.environment)
        }
    }

    // MARK: - Transport

    private struct EmptyBody: Decodable, Sendable {}

    private func send<Value: Decodable & Sendable>(
        _ method: String,
        _ path: String,
        query: [(String, String)] = [],
        body: [UInt8]? = nil,
        as type: Value.Type,
        environment: AppStoreEnvironment? = nil,
        fallback: Bool
    ) async throws(AppStoreAPIError) -> AppStoreAPIResponse<Value> {
        var environment = environment ?? self.configuration.environment
        var switched = false
        while true {
            let context = ClassificationContext(
                environment: environment,
                sandboxAllowed: fallback && self.configuration.sandboxFallback,
                switchedEnvironment: switched
            )
            let (outcome, response) = try await self.attempt(
                method, path, query: query, body: body, environment: environment, context: context)
            if case .ok = outcome, let response {
                if response.body.isEmpty, let empty = EmptyBody() as? Value {
                    return AppStoreAPIResponse(value: empty, environment: environment)
                }
                do {
                    let value = try JSONDecoder().decode(Value.self, from: Data(response.body))
                    return AppStoreAPIResponse(value: value, environment: environment)
                } catch {
                    throw AppStoreAPIError(
                        outcome: .retry(
                            after: AppleOutcomeClassifier.Delay.invalidBody,
                            reason: RetryReason(
                                .invalidResponseBody, "HTTP \(response.status) body is not \(Value.self): \(error)")
                        ),
                        environment: environment,
                        httpStatus: response.status
                    )
                }
            }
            if case .switchEnvironment(let next) = outcome, !switched {
                environment = next
                switched = true
                continue
            }
            throw AppStoreAPIError(
                outcome: outcome,
                environment: environment,
                httpStatus: response?.status,
                apiErrorCode: response.flatMap { JSONBody.object($0.body) }.flatMap {
                    JSONBody.integer($0["errorCode"])
                }
            )
        }
    }

    private func attempt(
        _ method: String,
        _ path: String,
        query: [(String, String)],
        body: [UInt8]?,
        environment: AppStoreEnvironment,
        context: ClassificationContext
    ) async throws(AppStoreAPIError) -> (AppleOutcome, AppleHTTPResponse?) {
        let token: String
        do {
            token = try self.tokens.token()
        } catch {
            throw AppStoreAPIError(
                outcome: .retry(
                    after: AppleOutcomeClassifier.Delay.configuration,
                    reason: RetryReason(.authentication, "cannot sign token: \(error)")),
                environment: environment
            )
        }
        let base = environment == .sandbox ? self.configuration.sandboxBaseURL : self.configuration.productionBaseURL
        var headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer \(token)"),
            ("Accept", "application/json"),
            ("User-Agent", "iap-pipeline/AppStore"),
        ]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let request = AppleHTTPRequest(
            method: method, url: base + path + Self.queryString(query), headers: headers, body: body)
        do throws(TransportFailure) {
            let response = try await self.executor.execute(request, timeout: self.configuration.timeout)
            let outcome = AppleOutcomeClassifier.classify(
                .serverAPI(status: response.status, body: response.body, retryAfter: response.header("Retry-After")),
                context: context
            )
            return (outcome, response)
        } catch {
            return (AppleOutcomeClassifier.classify(.transportFailure(error), context: context), nil)
        }
    }

    private static let pathSegmentAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#")
        return allowed
    }()

    private static let queryValueAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return allowed
    }()

    static func segment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: self.pathSegmentAllowed) ?? value
    }

    static func queryString(_ items: [(String, String)]) -> String {
        guard !items.isEmpty else { return "" }
        let pairs = items.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: Self.queryValueAllowed) ?? value)"
        }
        return "?" + pairs.joined(separator: "&")
    }
}
