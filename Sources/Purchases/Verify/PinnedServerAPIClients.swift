public import AppStore
public import AppStoreModels

/// One Server API client per environment, each with the fallback off: a call about a transaction
/// goes to the environment its signed data names (grant's consumption answers, confirm's calls).
public struct PinnedServerAPIClients: Sendable {
    private let production: AppStoreServerAPIClient
    private let sandbox: AppStoreServerAPIClient

    /// - Parameter api: credentials and endpoints; its `environment` and `sandboxFallback` are ignored.
    public init(api: AppStoreServerAPIConfiguration, executor: any AppleHTTPExecutor) throws(ConfigurationError) {
        self.production = try AppStoreServerAPIClient(configuration: api.pinned(to: .production), executor: executor)
        self.sandbox = try AppStoreServerAPIClient(configuration: api.pinned(to: .sandbox), executor: executor)
    }

    public func client(for environment: AppStoreEnvironment) -> AppStoreServerAPIClient {
        environment == .sandbox ? self.sandbox : self.production
    }
}
