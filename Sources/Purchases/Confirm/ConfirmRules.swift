public import AppStoreModels
public import Contracts
public import Foundation

/// What the confirm stage tells Apple after a change was committed on `iap.entitlements`
/// (issue 22 item 2, decision D55). Both are off by default.
public struct ConfirmConfiguration: Sendable, Hashable {
    /// Finish Transaction for every granted or renewed transaction: the server owns finishing,
    /// so a client that crashed between paying and finishing does not block a re-purchase.
    public var finishTransactions: Bool
    /// Set App Account Token on a purchase matched by order or user rather than by its token,
    /// with the token this scheme derives from the matched user, so later renewals and
    /// Apple's histories carry it. Nil: off.
    public var appAccountTokenScheme: AppAccountTokenScheme?

    public init(finishTransactions: Bool = false, appAccountTokenScheme: AppAccountTokenScheme? = nil) {
        self.finishTransactions = finishTransactions
        self.appAccountTokenScheme = appAccountTokenScheme
    }

    public var isEnabled: Bool { finishTransactions || appAccountTokenScheme != nil }
}

/// One call to Apple the confirm stage owes for a change.
public enum ConfirmAction: Hashable, Sendable, CustomStringConvertible {
    case finish(transactionId: String, environment: AppStoreEnvironment)
    case setAppAccountToken(originalTransactionId: String, token: UUID, environment: AppStoreEnvironment)

    public var call: AppleCall {
        switch self {
        case .finish(_, let environment): AppleCall(.finishTransaction, environment: environment)
        case .setAppAccountToken(_, _, let environment): AppleCall(.setAppAccountToken, environment: environment)
        }
    }

    /// The metric label of the action.
    public var name: String {
        switch self {
        case .finish: "finish_transaction"
        case .setAppAccountToken: "set_app_account_token"
        }
    }

    public var description: String {
        switch self {
        case .finish(let id, let environment): "finish \(id) (\(environment))"
        case .setAppAccountToken(let id, let token, let environment):
            "set appAccountToken \(token.uuidString.lowercased()) on \(id) (\(environment))"
        }
    }
}

/// Which calls an entitlement change owes Apple.
public enum ConfirmRules {
    public static func plan(_ event: EntitlementEvent, configuration: ConfirmConfiguration) -> [ConfirmAction] {
        guard event.environment == .production || event.environment == .sandbox else { return [] }
        // The app's own purchase (D58) is no in-app transaction: Apple has nothing to finish or token.
        guard event.productType != .app else { return [] }
        var actions: [ConfirmAction] = []
        if configuration.finishTransactions, event.action == .grant || event.action == .renew {
            actions.append(.finish(transactionId: event.transactionId, environment: event.environment))
        }
        if let scheme = configuration.appAccountTokenScheme, event.action == .grant,
            event.matchedBy == .orderId || event.matchedBy == .user,
            let token = scheme.token(forUserId: event.userId, bundleId: event.bundleId).flatMap(UUID.init(uuidString:))
        {
            actions.append(
                .setAppAccountToken(
                    originalTransactionId: event.originalTransactionId, token: token, environment: event.environment))
        }
        return actions
    }
}
