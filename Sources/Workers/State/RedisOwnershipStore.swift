public import Purchases
public import Redis

/// ``OwnershipStore`` in Redis: which user each purchase belongs to, bound once by whichever
/// match replica gets there first.
///
/// Key (``StateKeys``): `iap:owner:{<originalTransactionId>}`, the userId. Bound with a
/// one-key script (get, else set), so two replicas binding the same purchase to different
/// users at once both get the winner back.
///
/// No expiry by default: the binding must outlive the purchase. Renewals, refunds and a
/// receipt replayed by another account can arrive years later, and a forgotten binding would
/// let that other account take the purchase over (no `ownership_conflict`).
public struct RedisOwnershipStore: OwnershipStore {
    private let client: RedisClient
    public let keys: StateKeys
    /// Expiry of a binding, from when it was made; nil (the default) keeps it forever.
    public let retention: Duration?

    public init(client: RedisClient, keys: StateKeys = .standard, retention: Duration? = nil) {
        StateStorage.checkTTL(retention, "ownership retention")
        self.client = client
        self.keys = keys
        self.retention = retention
    }

    public func owner(originalTransactionId: String) async throws -> String? {
        let key = keys.owner(originalTransactionId)
        return try StateStorage.bytes(try await client.send("GET", .string(key)), key: key)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    public func bind(originalTransactionId: String, userId: String) async throws -> String {
        let key = keys.owner(originalTransactionId)
        return try await StateStorage.firstWins(client, key: key, candidate: userId, ttl: retention)
    }
}
