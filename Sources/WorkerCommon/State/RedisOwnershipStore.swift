public import Contracts
public import Pipeline
public import Purchases
public import Redis

/// ``OwnershipStore`` in Redis: which user each purchase belongs to, bound once by whichever
/// match replica gets there first.
///
/// Key (``Keyspace``): `iap:owner:{<originalTransactionId>}`, the userId. Bound with a
/// one-key script (get, else set), so two replicas binding the same purchase to different
/// users at once both get the winner back.
///
/// No expiry by default: the binding must outlive the purchase. Renewals, refunds and a
/// receipt replayed by another account can arrive years later, and a forgotten binding would
/// let that other account take the purchase over (no `ownership_conflict`). For the same reason
/// every binding match relies on is also in the compacted `iap.ownership` (decision D35), from
/// which ``putIfAbsent(_:)`` restores it after Redis lost its data, and a read or bind that
/// finds no binding is checked against the stage's marker (`fence`), so an emptied Redis is
/// never taken for a first sighting.
public struct RedisOwnershipStore: OwnershipStore {
    private let client: RedisClient
    public let keys: Keyspace
    /// Expiry of a binding, from when it was made; nil (the default) keeps it forever.
    public let retention: Duration?
    private let fence: GenerationFence?

    /// - Parameter fence: the worker's (``WorkerResources/fence``); nil for tools that only read.
    public init(
        client: RedisClient, keys: Keyspace = .standard, retention: Duration? = nil, fence: GenerationFence? = nil
    ) {
        StateStorage.checkTTL(retention, "ownership retention")
        self.client = client
        self.keys = keys
        self.retention = retention
        self.fence = fence
    }

    public func owner(originalTransactionId: String) async throws -> String? {
        let key = keys.owner(originalTransactionId)
        return try await StateStorage.get(client, key, fence: fence).map { String(decoding: $0, as: UTF8.self) }
    }

    public func bind(originalTransactionId: String, userId: String) async throws -> String {
        let key = keys.owner(originalTransactionId)
        return try await StateStorage.firstWins(client, key: key, candidate: userId, ttl: retention, fence: fence)
    }

    /// Writes each binding unless its purchase is bound already (a binding made since the loss
    /// is newer than the topic's copy, and the first binding is final). Returns how many were
    /// written. One round trip per `batchSize` bindings.
    public func putIfAbsent(_ bindings: [OwnershipBinding], batchSize: Int = 500) async throws -> Int {
        var written = 0
        for start in stride(from: 0, to: bindings.count, by: batchSize) {
            let batch = bindings[start..<min(start + batchSize, bindings.count)]
            var pipeline = RedisPipeline()
            let writes = batch.map {
                pipeline.append(
                    StateStorage.setIfAbsent(keys.owner($0.originalTransactionId), .string($0.userId), ttl: retention))
            }
            let replies = try await StateStorage.execute(client, pipeline)
            for write in writes where try replies[write] { written += 1 }
        }
        return written
    }
}
