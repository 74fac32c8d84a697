import Contracts
import Kafka
public import Logging
import Purchases

/// Rebuilds match's ownership bindings and grant's states in Redis from their compacted topics
/// (decision D35), as the stages' ``StateRecovery`` steps when Redis lost their state.
///
/// Each reads its topic as compaction leaves it (``CompactedTopicSnapshot``) and writes with
/// put-if-absent: a binding or state written since the loss (a record decided before the worker
/// stopped) is newer than the topic's copy and stays.
public enum StateRebuild {
    public struct Report: Codable, Equatable, Sendable {
        /// Records read, tombstones and malformed ones included.
        public var records = 0
        /// Distinct keys left after keeping the latest record per key.
        public var values = 0
        /// Values written to Redis.
        public var written = 0
        /// Values Redis held already (kept as they were).
        public var alreadyPresent = 0
        /// Records of another schema or not JSON (skipped and logged).
        public var malformed = 0
        /// Keys whose latest record is a tombstone.
        public var deleted = 0

        public init() {}

        init(_ snapshot: CompactedTopicSnapshot<some Sendable>, written: Int) {
            records = snapshot.records
            values = snapshot.latest.count
            self.written = written
            alreadyPresent = values - written
            malformed = snapshot.malformed
            deleted = snapshot.deleted
        }

        /// One line for the worker's log.
        public var summary: String {
            "\(written) written, \(alreadyPresent) present, \(deleted) deleted, \(malformed) malformed of \(records) records"
        }
    }

    /// Match's bindings from `topic` (`iap.ownership`).
    public static func ownership(
        from topic: String, bootstrapServers: String, kafkaProperties: [String: String] = [:],
        into store: RedisOwnershipStore, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> Report {
        let snapshot = try await CompactedTopicSnapshot.read(
            topic: topic, bootstrapServers: bootstrapServers, kafkaProperties: kafkaProperties,
            purpose: "iap-ownership-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in try EventDecoder.decode(OwnershipBinding.self, from: bytes) },
            fallbackKey: \.originalTransactionId
        )
        let written = try await store.putIfAbsent(Array(snapshot.latest.values))
        return Report(snapshot, written: written)
    }

    /// Grant's states from `topic` (`iap.entitlement-states`), with the subscription-expiries
    /// index their saves keep.
    public static func entitlementStates(
        from topic: String, bootstrapServers: String, kafkaProperties: [String: String] = [:],
        into store: RedisEntitlementStateStore, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> Report {
        let snapshot = try await CompactedTopicSnapshot.read(
            topic: topic, bootstrapServers: bootstrapServers, kafkaProperties: kafkaProperties,
            purpose: "iap-entitlement-states-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in
                try EventDecoder.decode(EntitlementStateRecord.self, from: bytes).state
            },
            fallbackKey: \.originalTransactionId
        )
        let written = try await store.putIfAbsent(Array(snapshot.latest.values))
        return Report(snapshot, written: written)
    }
}
