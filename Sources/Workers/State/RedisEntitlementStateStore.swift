import AppStore
import Contracts
public import Purchases
public import Redis

/// ``EntitlementStateStore`` in Redis: grant's state per purchase.
///
/// Key (``StateKeys``): `iap:entitlement:{<originalTransactionId>}`, the `EntitlementState`
/// as JSON. A plain `GET`/`SET`: `iap.matched` is keyed by originalTransactionId, so one lane
/// reads and writes a purchase's state at a time.
///
/// No expiry by default, on purpose. The state is what makes grant's output "exactly one
/// effective change": it holds the latest applied signing date, the current period and the
/// revoked transactions for the purchase's whole life. Non-consumables are entitled forever,
/// subscriptions renew for years, and refunds or Apple's re-sent old views can come long
/// after the purchase; with the state expired, such a late or replayed delivery would be a
/// first sighting again and grant a second time. Each state is a few hundred bytes, one per
/// purchase. Set `retention` only where every purchase's later updates are bounded in time.
///
/// Each save also keeps ``StateKeys/subscriptionExpiries`` right (decision D32): an auto-renewable
/// state with access is in it, scored by when that access ends (its expiresDate, or in a grace
/// period the grace period's end); any other state is not. Reconcile's sweep reads the members
/// whose access end passed without a notification saying what happened.
public struct RedisEntitlementStateStore: EntitlementStateStore {
    private let client: RedisClient
    public let keys: StateKeys
    /// Expiry from the latest save; nil (the default) keeps states forever.
    public let retention: Duration?

    public init(client: RedisClient, keys: StateKeys = .standard, retention: Duration? = nil) {
        StateStorage.checkTTL(retention, "entitlement state retention")
        self.client = client
        self.keys = keys
        self.retention = retention
    }

    public func state(originalTransactionId: String) async throws -> EntitlementState? {
        let key = keys.entitlement(originalTransactionId)
        guard let json = try StateStorage.bytes(try await client.send("GET", .string(key)), key: key) else {
            return nil
        }
        return try StateStorage.decode(EntitlementState.self, from: json, key: key)
    }

    public func save(_ state: EntitlementState) async throws {
        let key = keys.entitlement(state.originalTransactionId)
        let member = RedisValue.string(state.originalTransactionId)
        let index: [RedisValue] =
            if let accessEnd = Self.accessEnd(state) {
                ["ZADD", .string(keys.subscriptionExpiries), .integer(accessEnd.millisecondsSince1970), member]
            } else {
                ["ZREM", .string(keys.subscriptionExpiries), member]
            }
        try await StateStorage.pipeline(
            client, [StateStorage.set(key, try StateStorage.encode(state), ttl: retention), index])
    }

    /// When the access of an auto-renewable state ends, if it has access.
    static func accessEnd(_ state: EntitlementState) -> Timestamp? {
        guard state.productType == .autoRenewableSubscription, state.status.hasAccess else { return nil }
        return state.status == .gracePeriod ? state.gracePeriodExpiresDate ?? state.expiresDate : state.expiresDate
    }
}
