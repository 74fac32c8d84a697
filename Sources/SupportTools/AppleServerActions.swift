public import AppStore
public import AppStoreModels
public import Foundation
public import Purchases

/// What an operator asks Apple to do for a customer (issue 22 item 2): finish a transaction, set
/// a purchase line's app account token, read the customer's AppTransaction, extend a
/// subscription's renewal date or every active subscriber's. Each call asks the shared Apple gate
/// first (the workers' budget, Apple's per-endpoint limits) and waits for its slot, so a support
/// session never spends the budget a backlog is draining on.
public struct AppleServerActions: Sendable {
    public let client: AppStoreServerAPIClient
    public let checker: SignedDataChecker
    private let gate: (any AppleCallGate)?
    /// Told how long a call waits for its slot, before it waits.
    private let onWait: @Sendable (Duration) -> Void

    public init(
        client: AppStoreServerAPIClient, checker: SignedDataChecker, gate: (any AppleCallGate)?,
        onWait: @escaping @Sendable (Duration) -> Void = { _ in }
    ) {
        self.client = client
        self.checker = checker
        self.gate = gate
        self.onWait = onWait
    }

    /// What a call that changes something answers: what was done, where.
    public struct Done: Codable, Sendable, Hashable {
        public var action: String
        public var transactionId: String
        public var environment: AppStoreEnvironment
        public var appAccountToken: String?
    }

    public func finish(transactionId: String) async throws -> Done {
        try await admit(.finishTransaction)
        let response = try await call("Finish Transaction") { () async throws(AppStoreAPIError) in
            try await client.finishTransaction(transactionId: transactionId)
        }
        return Done(action: "finish_transaction", transactionId: transactionId, environment: response.environment)
    }

    public func setAppAccountToken(originalTransactionId: String, token: UUID) async throws -> Done {
        try await admit(.setAppAccountToken)
        let response = try await call("Set App Account Token") { () async throws(AppStoreAPIError) in
            try await client.setAppAccountToken(originalTransactionId: originalTransactionId, token: token)
        }
        return Done(
            action: "set_app_account_token", transactionId: originalTransactionId, environment: response.environment,
            appAccountToken: token.uuidString.lowercased())
    }

    public func appTransaction(anyTransactionId: String) async throws -> CheckedAppTransaction {
        await checker.appTransaction(try await signedAppTransaction(anyTransactionId: anyTransactionId))
    }

    /// Get App Transaction Info's signed AppTransaction as Apple sent it: what a backend publishes
    /// as a purchase's `appTransaction` when the app did not send its own (D58).
    public func signedAppTransaction(anyTransactionId: String) async throws -> String {
        try await admit(.appTransactionInfo)
        let response = try await call("Get App Transaction Info") { () async throws(AppStoreAPIError) in
            try await client.getAppTransactionInfo(anyTransactionId: anyTransactionId)
        }
        guard let signed = response.value.signedAppTransactionInfo else {
            throw SupportError(.appleError, "Get App Transaction Info answered without signedAppTransactionInfo")
        }
        return signed
    }

    public func extend(originalTransactionId: String, _ request: ExtendRenewalDateRequest) async throws
        -> ExtendRenewalDateResponse
    {
        try await admit(.extendRenewalDate)
        return try await call("Extend a Subscription Renewal Date") { () async throws(AppStoreAPIError) in
            try await client.extendSubscriptionRenewalDate(originalTransactionId: originalTransactionId, request)
        }.value
    }

    public func extendAll(_ request: MassExtendRenewalDateRequest) async throws -> MassExtendRenewalDateResponse {
        try await admit(.massExtension)
        return try await call("Extend Renewal Dates for All Active Subscribers") { () async throws(AppStoreAPIError) in
            try await client.extendRenewalDateForAllActiveSubscribers(request)
        }.value
    }

    public func extensionStatus(requestIdentifier: String, productId: String) async throws
        -> MassExtendRenewalDateStatusResponse
    {
        try await admit(.massExtension)
        return try await call("Get Status of Subscription Renewal Date Extensions") {
            () async throws(AppStoreAPIError) in
            try await client.getStatusOfSubscriptionRenewalDateExtensions(
                requestIdentifier: requestIdentifier, productId: productId)
        }.value
    }

    /// Waits for the call's slot in the shared budget (none without a gate).
    private func admit(_ endpoint: AppleCall.Endpoint) async throws {
        guard let gate else { return }
        let call = AppleCall(endpoint, environment: client.configuration.environment)
        var booking: GateBooking?
        while case .wait(let slot) = try await gate.acquire(call, holding: booking) {
            onWait(slot.delay)
            try await Task.sleep(for: slot.delay)
            booking = slot.booking
        }
    }

    private func call<Value>(
        _ name: String, _ body: () async throws(AppStoreAPIError) -> AppStoreAPIResponse<Value>
    ) async throws(SupportError) -> AppStoreAPIResponse<Value> {
        do {
            return try await body()
        } catch {
            throw SupportError(call: name, error)
        }
    }
}
