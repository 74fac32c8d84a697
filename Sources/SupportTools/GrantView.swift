public import AppStoreModels
import Contracts
public import Purchases

/// What grant holds for one purchase (its state in Redis, keyed by originalTransactionId), as
/// the support tools show it beside Apple's answer.
public struct GrantView: Encodable, Hashable, Sendable {
    /// `seen`: grant has a state for the purchase; `neverSeen`: no grant ever reached it.
    public enum Presence: String, Encodable, Sendable {
        case seen
        case neverSeen
    }

    public var presence: Presence
    public var originalTransactionId: String
    /// `active`, `expired`, `revoked` (grant's `EntitlementState.Status`).
    public var status: String?
    public var userId: String?
    public var orderId: String?
    /// The product entitled now (or last).
    public var entitledProductId: String?
    /// The transaction that last set the entitlement.
    public var transactionId: String?
    public var expiresDate: Timestamp?
    public var revokedTransactionIds: [String]

    public init(originalTransactionId: String, state: EntitlementState?) {
        self.originalTransactionId = originalTransactionId
        self.presence = state == nil ? .neverSeen : .seen
        self.status = state?.status.rawValue
        self.userId = state?.userId
        self.orderId = state?.orderId
        self.entitledProductId = state?.productId
        self.transactionId = state?.transactionId
        self.expiresDate = state?.expiresDate
        self.revokedTransactionIds = state?.revokedTransactionIds ?? []
    }

    /// Reads grant's state of each purchase once.
    public static func lookUp(_ originalTransactionIds: [String], in store: any EntitlementStateStore) async throws
        -> [String: GrantView]
    {
        var views: [String: GrantView] = [:]
        for id in originalTransactionIds where views[id] == nil {
            views[id] = GrantView(originalTransactionId: id, state: try await store.state(originalTransactionId: id))
        }
        return views
    }
}
