public import Contracts
public import Pipeline
public import Purchases
public import Redis

/// ``OrderIndex`` in Redis, shared by every match replica.
///
/// Keys (``Keyspace``):
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
/// `put` writes the order and its token index in one `MULTI`/`EXEC` transaction, so no reader
/// ever sees a token without its order or an order without its token (decision D18); both are
/// plain `SET`s, so replaying the topic is idempotent and a later order with the same orderId
/// replaces the earlier one. As in ``InMemoryOrderIndex``, a token the order no longer carries
/// keeps leading to it: a customer may have paid with it. Orders are never deleted apart
/// from expiry, so a token read at one moment still leads to an order at the next.
public struct RedisOrderIndex: OrderIndex {
    private let client: RedisClient
    public let keys: Keyspace
    /// Expiry of orders, token indexes and claims; nil keeps them until deleted.
    public let retention: Duration?

    public init(client: RedisClient, keys: Keyspace = .standard, retention: Duration? = nil) {
        StateStorage.checkTTL(retention, "order retention")
        self.client = client
        self.keys = keys
        self.retention = retention
    }

    public func put(_ order: OrderEvent) async throws {
        var transaction = RedisPipeline()
        transaction.append(
            StateStorage.set(keys.order(order.orderId), try StateStorage.encodeEvent(order), ttl: retention))
        if let token = order.appAccountToken {
            transaction.append(StateStorage.set(keys.orderToken(token), .string(order.orderId), ttl: retention))
        }
        _ = try await StateStorage.transaction(client, transaction)
    }

    /// Writes `order` and its token index only where nothing is stored yet, for rebuilding
    /// the index while match may be running: whatever match stored is at least as new as the
    /// replayed record, or match will overwrite it when it reaches the newer one. Returns
    /// whether the order itself was written.
    public func putIfAbsent(_ order: OrderEvent) async throws -> Bool {
        var transaction = RedisPipeline()
        let written = transaction.append(
            StateStorage.setIfAbsent(keys.order(order.orderId), try StateStorage.encodeEvent(order), ttl: retention))
        if let token = order.appAccountToken {
            transaction.append(StateStorage.setIfAbsent(keys.orderToken(token), .string(order.orderId), ttl: retention))
        }
        return try await StateStorage.transaction(client, transaction)[written]
    }

    public func order(appAccountToken: String) async throws -> OrderEvent? {
        let key = keys.orderToken(appAccountToken)
        guard let orderId = try await client.execute(GET(key)) else { return nil }
        return try await order(orderId: String(decoding: orderId, as: UTF8.self))
    }

    /// Reads the token index and the hinted order in one transaction (one moment), then the
    /// token's order when it is another one.
    public func orders(appAccountToken: String?, orderId: String?) async throws -> OrderLookup {
        var reads = RedisPipeline()
        let byToken = appAccountToken.map { reads.append(GET(keys.orderToken($0))) }
        let byOrderId = orderId.map { reads.append(GET(keys.order($0))) }
        guard !reads.isEmpty else { return OrderLookup() }
        let replies = try await StateStorage.transaction(client, reads)
        var lookup = OrderLookup()
        if let orderId, let byOrderId, let json = try replies[byOrderId] {
            lookup.byOrderId = try StateStorage.decodeEvent(OrderEvent.self, from: json, key: keys.order(orderId))
        }
        if let byToken, let tokenOrderId = try replies[byToken] {
            let tokenOrderId = String(decoding: tokenOrderId, as: UTF8.self)
            lookup.byToken = tokenOrderId == orderId ? lookup.byOrderId : try await order(orderId: tokenOrderId)
        }
        return lookup
    }

    public func order(orderId: String) async throws -> OrderEvent? {
        let key = keys.order(orderId)
        guard let json = try await client.execute(GET(key)) else { return nil }
        return try StateStorage.decodeEvent(OrderEvent.self, from: json, key: key)
    }

    public func claim(orderId: String, originalTransactionId: String) async throws -> String {
        let key = keys.orderClaim(orderId)
        return try await StateStorage.firstWins(client, key: key, candidate: originalTransactionId, ttl: retention)
    }
}
