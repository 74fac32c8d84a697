public import Contracts
public import Pipeline
public import Purchases
public import Redis

/// ``VerifiedTransactionCache`` in Redis, so a purchase verified by one verify replica is not
/// sent to Apple again by another.
///
/// Key (``Keyspace``): `iap:verified:{<transactionId>}`, the `TransactionDetails` as JSON,
/// written with `SET … PX` so each put replaces the entry and restarts its expiry.
///
/// Expiry (default 7 days): entries are Apple-verified facts, so the TTL is only about
/// storage. The three deliveries of one purchase (StoreKit 2, StoreKit 1, notification)
/// normally arrive within minutes; a week also covers Apple's notification retries (1, 12,
/// 24, 48 and 72 hours apart: the last one about 6.5 days after the first attempt).
public struct RedisVerifiedTransactionCache: VerifiedTransactionCache {
    /// 7 days.
    public static let defaultRetention: Duration = .seconds(7 * 24 * 3600)

    private let client: RedisClient
    public let keys: Keyspace
    public let retention: Duration

    public init(client: RedisClient, keys: Keyspace = .standard, retention: Duration = Self.defaultRetention) {
        StateStorage.checkTTL(retention, "verified transaction retention")
        self.client = client
        self.keys = keys
        self.retention = retention
    }

    public func get(transactionId: String) async throws -> TransactionDetails? {
        let key = keys.verifiedTransaction(transactionId)
        guard let json = try await client.execute(GET(key)) else { return nil }
        return try StateStorage.decode(TransactionDetails.self, from: json, key: key)
    }

    public func put(_ transaction: TransactionDetails) async throws {
        let key = keys.verifiedTransaction(transaction.transactionId)
        _ = try await client.execute(StateStorage.set(key, try StateStorage.encode(transaction), ttl: retention))
    }
}
