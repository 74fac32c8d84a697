public import AppStoreModels
import Contracts
import Customers
public import Foundation
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

    /// The audit index from `topic` (`iap.audit`, D51): every entry younger than `retention`,
    /// indexed again batch by batch as the topic is read (a retained trail is too large to hold).
    /// The index is a set union, so entries indexed since the loss stay and entries indexed
    /// twice are one. Not a compacted topic: the whole retained trail is read, older entries
    /// skipped. A rebuilt key expires `retention` after the rebuild, not after its entry.
    public static func auditIndex(
        from topic: String, cluster: KafkaCluster, into index: RedisAuditIndex, retention: Duration,
        logger: Logger, idleTimeout: Duration = .seconds(30), now: Timestamp = Timestamp(Date())
    ) async throws -> RebuildReport {
        let configuration = BoundedTopicRead.configuration(
            cluster: cluster, groupId: "iap-audit-rebuild-\(UUID().uuidString)", topic: topic,
            clientId: "iap-audit-rebuild")
        let oldest = now.advanced(by: .zero - retention)
        var report = try await BoundedTopicRead.fold(
            configuration, logger: logger, idleTimeout: idleTimeout, into: RebuildReport()
        ) { report, batch in
            report.records += batch.count
            var fresh: [AuditEntry] = []
            for record in batch where !record.value.isEmpty {
                do throws(Rejection) {
                    let entry = try EventDecoder.decode(AuditEntry.self, from: Array(record.value))
                    if entry.at >= oldest { fresh.append(entry) }
                } catch {
                    report.malformed += 1
                    logger.warning(
                        "skipped a record of \(topic) that does not decode",
                        metadata: [
                            "partition": "\(record.partition)", "offset": "\(record.offset)", "reason": "\(error)",
                        ])
                }
            }
            report.values += fresh.count
            for start in stride(from: 0, to: fresh.count, by: 500) {
                report.written += try await index.index(Array(fresh[start..<min(start + 500, fresh.count)]))
            }
        }
        report.alreadyPresent = report.values - report.written
        return report
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
