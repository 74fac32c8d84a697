public import AppStore
public import AppStoreModels

/// Sends one consumption answer to Apple, in the environment the transaction belongs to.
public protocol ConsumptionSender: Sendable {
    func send(_ request: ConsumptionRequest, transactionId: String, environment: AppStoreEnvironment)
        async throws(AppleCallFailure)
}

/// ``ConsumptionSender`` over `AppStoreServerAPIClient`: one client per environment with the
/// fallback off, since the transaction's signed `environment` says where it lives.
public struct AppStoreConsumptionSender: ConsumptionSender {
    private let clients: PinnedServerAPIClients

    /// - Parameter api: credentials and endpoints; its `environment` and `sandboxFallback` are ignored.
    public init(api: AppStoreServerAPIConfiguration, executor: any AppleHTTPExecutor = AsyncHTTPClientExecutor())
        throws(ConfigurationError)
    {
        self.clients = try PinnedServerAPIClients(api: api, executor: executor)
    }

    public func send(_ request: ConsumptionRequest, transactionId: String, environment: AppStoreEnvironment)
        async throws(AppleCallFailure)
    {
        do throws(AppStoreAPIError) {
            _ = try await clients.client(for: environment).sendConsumptionInformation(
                transactionId: transactionId, request)
        } catch {
            throw AppleCallFailure(error.outcome)
        }
    }
}
