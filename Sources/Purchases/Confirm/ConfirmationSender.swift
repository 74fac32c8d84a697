public import AppStore
public import AppStoreModels
public import Foundation

/// Sends the confirm stage's calls to Apple, in the environment the transaction belongs to.
public protocol ConfirmationSender: Sendable {
    func send(_ action: ConfirmAction) async throws(AppleCallFailure)
}

/// ``ConfirmationSender`` over `AppStoreServerAPIClient`: one client per environment with the
/// fallback off, since the transaction's signed `environment` says where it lives.
public struct AppStoreConfirmationSender: ConfirmationSender {
    private let production: AppStoreServerAPIClient
    private let sandbox: AppStoreServerAPIClient

    /// - Parameter api: credentials and endpoints; its `environment` and `sandboxFallback` are ignored.
    public init(api: AppStoreServerAPIConfiguration, executor: any AppleHTTPExecutor = AsyncHTTPClientExecutor())
        throws(ConfigurationError)
    {
        self.production = try AppStoreServerAPIClient(configuration: api.pinned(to: .production), executor: executor)
        self.sandbox = try AppStoreServerAPIClient(configuration: api.pinned(to: .sandbox), executor: executor)
    }

    public func send(_ action: ConfirmAction) async throws(AppleCallFailure) {
        do throws(AppStoreAPIError) {
            switch action {
            case .finish(let transactionId, let environment):
                _ = try await client(environment).finishTransaction(transactionId: transactionId)
            case .setAppAccountToken(let originalTransactionId, let token, let environment):
                _ = try await client(environment).setAppAccountToken(
                    originalTransactionId: originalTransactionId, token: token)
            }
        } catch {
            throw AppleCallFailure(error.outcome)
        }
    }

    private func client(_ environment: AppStoreEnvironment) -> AppStoreServerAPIClient {
        environment == .sandbox ? self.sandbox : self.production
    }
}
