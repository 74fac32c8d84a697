public import AppStore

/// Sends the confirm stage's calls to Apple, in the environment the transaction belongs to.
public protocol ConfirmationSender: Sendable {
    func send(_ action: ConfirmAction) async throws(AppleCallFailure)
}

/// ``ConfirmationSender`` over `AppStoreServerAPIClient`: one client per environment with the
/// fallback off, since the transaction's signed `environment` says where it lives.
public struct AppStoreConfirmationSender: ConfirmationSender {
    private let clients: PinnedServerAPIClients

    /// - Parameter api: credentials and endpoints; its `environment` and `sandboxFallback` are ignored.
    public init(api: AppStoreServerAPIConfiguration, executor: any AppleHTTPExecutor = AsyncHTTPClientExecutor())
        throws(ConfigurationError)
    {
        self.clients = try PinnedServerAPIClients(api: api, executor: executor)
    }

    public func send(_ action: ConfirmAction) async throws(AppleCallFailure) {
        do throws(AppStoreAPIError) {
            switch action {
            case .finish(let transactionId, let environment):
                _ = try await clients.client(for: environment).finishTransaction(transactionId: transactionId)
            case .setAppAccountToken(let originalTransactionId, let token, let environment):
                _ = try await clients.client(for: environment).setAppAccountToken(
                    originalTransactionId: originalTransactionId, token: token)
            }
        } catch {
            throw AppleCallFailure(error.outcome)
        }
    }
}
