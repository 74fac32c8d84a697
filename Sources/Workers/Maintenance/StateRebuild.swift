import Contracts
import Customers
public import Kafka
public import Logging
import Purchases
public import WorkerCommon

/// Rebuilds match's ownership bindings, grant's states (decision D35) and the customer records
/// (D49) in Redis from their compacted topics, as the stages' ``StateRecovery`` steps when Redis
/// lost their state.
///
/// Each reads its topic as compaction leaves it (``CompactedTopicSnapshot``) and writes with
/// put-if-absent: a binding, state or record written since the loss (by a record decided before
/// the worker stopped) is newer than the topic's copy and stays.
public enum StateRebuild {
    /// Match's bindings from `topic` (`iap.ownership`).
    public static func ownership(
        from topic: String, cluster: KafkaCluster,
        into store: RedisOwnershipStore, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> RebuildReport {
        try await rebuild(
            from: topic, cluster: cluster, purpose: "iap-ownership-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in try EventDecoder.decode(OwnershipBinding.self, from: bytes) },
            key: \.originalTransactionId, put: { try await store.putIfAbsent($0) })
    }

    /// The customer state's records from `topic` (`iap.customers`, D49).
    public static func customers(
        from topic: String, cluster: KafkaCluster,
        into store: RedisCustomerStore, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> RebuildReport {
        try await rebuild(
            from: topic, cluster: cluster, purpose: "iap-customers-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in try EventDecoder.decode(CustomerRecord.self, from: bytes) },
            key: \.key, put: { try await store.putIfAbsent($0) })
    }

    /// Grant's states from `topic` (`iap.entitlement-states`), with the subscription-expiries
    /// index their saves keep.
    public static func entitlementStates(
        from topic: String, cluster: KafkaCluster,
        into store: RedisEntitlementStateStore, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> RebuildReport {
        try await rebuild(
            from: topic, cluster: cluster, purpose: "iap-entitlement-states-rebuild", logger: logger,
            idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in try EventDecoder.decode(EntitlementStateRecord.self, from: bytes).state
            },
            key: \.originalTransactionId, put: { try await store.putIfAbsent($0) })
    }

    /// The snapshot of `topic`, its latest values written put-if-absent by `put`.
    private static func rebuild<Value: Sendable>(
        from topic: String, cluster: KafkaCluster, purpose: String, logger: Logger, idleTimeout: Duration,
        decode: ([UInt8]) throws -> Value, key: KeyPath<Value, String>,
        put: ([Value]) async throws -> Int
    ) async throws -> RebuildReport {
        let snapshot = try await CompactedTopicSnapshot.read(
            topic: topic, cluster: cluster, purpose: purpose, logger: logger, idleTimeout: idleTimeout,
            decode: decode, fallbackKey: { $0[keyPath: key] })
        let written = try await put(Array(snapshot.latest.values))
        return RebuildReport(snapshot, written: written)
    }
}
