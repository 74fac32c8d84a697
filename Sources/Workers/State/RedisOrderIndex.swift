public import Purchases
public import Redis

/// ``OrderIndex`` in Redis, shared by every match replica.
///
/// Keys (``StateKeys``):
/// - `iap:order:{<orderId>}`: the order as `iap.order.v1` JSON.
/// - `iap:order-token:{<appAccountToken>}`: the orderId the token belongs to.
/// - `iap:order:{<orderId>}:claim`: the originalTransactionId of the first claiming purchase.
///
/// No expiry by default: an order is what ties a paying customer's token to a user, and a
/// purchase can be verified long after its order (a notification retried for days, a
/// `iap reconcile` backfill). `iap.orders` is compacted and replayable: `iap orders rebuild`
/// (``OrderIndexRebuild``) restores lost or expired orders from it; the claim gets the same
/// retention.
///
/// `put` writes the order before its token index (one pipelined write), so a token never
/// leads to a missing order; both are plain `SET`s, so replaying the topic is idempotent and a
/// later order with the same orderId replaces the earlier one. As in ``InMemoryOrderIndex``, a
/// token the order no longer carries keeps leading to it: a customer may have paid with it.
public struct RedisOrderIndex: OrderIndex {
    private let client: RedisClient
    public let keys: StateKeys
    /// Expiry of orders, token indexes and claims; nil keeps them until deleted.
    public let retention: Duration?

    public init(client: RedisClient, keys: StateKeys = .standard, retention: Duration? = nil) {
        StateStorage.checkTTL(retention, "order retention")
        self.client = client
        self.keys = keys
        self.retention = retention
    }

    public func put(_ order: OrderEvent) async throws {
        var commands = [StateStorage.set(keys.order(order.orderId), try StateStorage.encodeEvent(order), ttl: retention)]
        if let token = order.appAccountToken {
            commands.append(StateStorage.set(keys.orderToken(token), .string(order.orderId), ttl: retention))
        }
        try await StateStorage.pipeline(client, commands)
    }

    /// Writes `order` and its token index only where nothing is stored yet, for rebuilding
    /// the index while match may be running: whatever match stored is at least as new as the
    /// replayed record, or match will overwrite it when it reaches the newer one. Returns
    /// whether the order itself was written.
    public func putIfAbsent(_ order: OrderEvent) async throws -> Bool {
        var commands = [StateStorage.setIfAbsent(keys.order(order.orderId), try StateStorage.encodeEvent(order), ttl: retention)]
        if let token = order.appAccountToken {
            commands.append(StateStorage.setIfAbsent(keys.orderToken(token), .string(order.orderId), ttl: retention))
        }
        let replies = try await StateStorage.pipeline(client, commands)
        return replies.first != .null
    }

    public func order(appAccountToken: String) async throws -> OrderEvent? {
        let key = keys.orderToken(appAccountToken)
        guard let orderId = try StateStorage.bytes(try await client.send("GET", .string(key)), key: key) else { return nil }
        return try await order(orderId: String(decoding: orderId, as: UTF8.self))
    }

    public func order(orderId: String) async throws -> OrderEvent? {
        let key = keys.order(orderId)
        guard let json = try StateStorage.bytes(try await client.send("GET", .string(key)), key: key) else { return nil }
        return try StateStorage.decodeEvent(OrderEvent.self, from: json, key: key)
    }

    public func claim(orderId: String, originalTransactionId: String) async throws -> String {
        let key = keys.orderClaim(orderId)
        return try await StateStorage.firstWins(client, key: key, candidate: originalTransactionId, ttl: retention)
    }
}
