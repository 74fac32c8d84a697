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
/// put-if-absent: a binding or state written since the loss (a record decided before the worker
/// stopped) is newer than the topic's copy and stays.
public enum StateRebuild {
    /// Match's bindings from `topic` (`iap.ownership`).
    public static func ownership(
        from topic: String, cluster: KafkaCluster,
        into store: RedisOwnershipStore, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> RebuildReport {
        let snapshot = try await CompactedTopicSnapshot.read(
            topic: topic, cluster: cluster,
            purpose: "iap-ownership-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in try EventDecoder.decode(OwnershipBinding.self, from: bytes) },
            fallbackKey: \.originalTransactionId
        )
        let written = try await store.putIfAbsent(Array(snapshot.latest.values))
        return RebuildReport(snapshot, written: written)
    }

    /// The customer state's records from `topic` (`iap.customers`, D49).
    public static func customers(
        from topic: String, cluster: KafkaCluster,
        into store: RedisCustomerStore, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> RebuildReport {
        let snapshot = try await CompactedTopicSnapshot.read(
            topic: topic, cluster: cluster,
            purpose: "iap-customers-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in try EventDecoder.decode(CustomerRecord.self, from: bytes) },
            fallbackKey: \.key
        )
        let written = try await store.putIfAbsent(Array(snapshot.latest.values))
        return RebuildReport(snapshot, written: written)
    }

    /// Grant's states from `topic` (`iap.entitlement-states`), with the subscription-expiries
    /// index their saves keep.
    public static func entitlementStates(
        from topic: String, cluster: KafkaCluster,
        into store: RedisEntitlementStateStore, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> RebuildReport {
        let snapshot = try await CompactedTopicSnapshot.read(
            topic: topic, cluster: cluster,
            purpose: "iap-entitlement-states-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in
                try EventDecoder.decode(EntitlementStateRecord.self, from: bytes).state
            },
            fallbackKey: \.originalTransactionId
        )
        let written = try await store.putIfAbsent(Array(snapshot.latest.values))
        return RebuildReport(snapshot, written: written)
    }
}
