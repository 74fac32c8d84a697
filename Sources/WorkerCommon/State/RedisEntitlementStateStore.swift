import AppStoreModels
import Contracts
public import Pipeline
public import Purchases
public import Redis

/// ``EntitlementStateStore`` in Redis: grant's state per purchase.
///
/// Key (``Keyspace``): `iap:entitlement:{<originalTransactionId>}`, the `EntitlementState`
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
/// Each save also keeps ``Keyspace/subscriptionExpiries`` right (decision D32): an auto-renewable
/// state with access is in it, scored by when that access ends (its expiresDate, or in a grace
/// period the grace period's end); any other state is not. Reconcile's sweep reads the members
/// whose access end passed without a notification saying what happened.
///
/// Every state grant saves was delivered to the compacted `iap.entitlement-states` first
/// (decision D35); ``putIfAbsent(_:)`` restores states (and their index entries) from there
/// after Redis lost its data. With a `fence`, a read that finds no state is checked against the
/// stage's marker, so an emptied Redis is never taken for a first sighting.
public struct RedisEntitlementStateStore: EntitlementStateStore {
    private let client: RedisClient
    public let keys: Keyspace
    /// Expiry from the latest save; nil (the default) keeps states forever.
    public let retention: Duration?
    private let fence: GenerationFence?

    /// - Parameter fence: grant's (``WorkerResources/fence``); nil for tools that only read.
    public init(
        client: RedisClient, keys: Keyspace = .standard, retention: Duration? = nil, fence: GenerationFence? = nil
    ) {
        StateStorage.checkTTL(retention, "entitlement state retention")
        self.client = client
        self.keys = keys
        self.retention = retention
        self.fence = fence
    }

    public func state(originalTransactionId: String) async throws -> EntitlementState? {
        let key = keys.entitlement(originalTransactionId)
        guard let json = try await StateStorage.get(client, key, fence: fence) else { return nil }
        return try StateStorage.decode(EntitlementState.self, from: json, key: key)
    }

    public func save(_ state: EntitlementState) async throws {
        let key = keys.entitlement(state.originalTransactionId)
        let member = RedisValue.string(state.originalTransactionId)
        var pipeline = RedisPipeline()
        pipeline.append(StateStorage.set(key, try StateStorage.encode(state), ttl: retention))
        if let accessEnd = Self.accessEnd(state) {
            pipeline.append(ZADD(keys.subscriptionExpiries, score: accessEnd.millisecondsSince1970, member: member))
        } else {
            pipeline.append(ZREM(keys.subscriptionExpiries, members: [member]))
        }
        try await StateStorage.execute(client, pipeline)
    }

    /// Writes each state unless Redis holds one for its purchase already (saved since the loss,
    /// so newer than the topic's copy), and indexes the written ones as ``save(_:)`` would.
    /// Returns how many were written. Two round trips per `batchSize` states.
    public func putIfAbsent(_ states: [EntitlementState], batchSize: Int = 500) async throws -> Int {
        var written = 0
        for start in stride(from: 0, to: states.count, by: batchSize) {
            let batch = Array(states[start..<min(start + batchSize, states.count)])
            var writes = RedisPipeline()
            let slots = try batch.map {
                writes.append(
                    StateStorage.setIfAbsent(
                        keys.entitlement($0.originalTransactionId), try StateStorage.encode($0), ttl: retention))
            }
            let replies = try await StateStorage.execute(client, writes)
            var indexed = RedisPipeline()
            for (state, slot) in zip(batch, slots) where try replies[slot] {
                written += 1
                if let accessEnd = Self.accessEnd(state) {
                    indexed.append(
                        ZADD(
                            keys.subscriptionExpiries, score: accessEnd.millisecondsSince1970,
                            member: .string(state.originalTransactionId)))
                }
            }
            if !indexed.isEmpty { try await StateStorage.execute(client, indexed) }
        }
        return written
    }

    /// When the access of an auto-renewable state ends, if it has access.
    static func accessEnd(_ state: EntitlementState) -> Timestamp? {
        guard state.productType == .autoRenewableSubscription, state.status.hasAccess else { return nil }
        return state.status == .gracePeriod ? state.gracePeriodExpiresDate ?? state.expiresDate : state.expiresDate
    }
}
