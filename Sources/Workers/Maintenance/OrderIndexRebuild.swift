import Contracts
import Kafka
public import Logging
import Purchases

/// Rebuilds the Redis order index from the compacted `iap.orders` topic (`iap orders rebuild`):
/// after Redis lost its data, after orders expired under a `retention`, or to check the index.
///
/// It reads the topic as compaction leaves it (``CompactedTopicSnapshot``: the latest record
/// per Kafka key, the appAccountToken, in a throwaway group, so match may keep running) and
/// writes each order with ``RedisOrderIndex/putIfAbsent(_:)``, so an order match stored
/// meanwhile is never replaced by an older copy.
public enum OrderIndexRebuild {
    public struct Report: Codable, Equatable, Sendable {
        /// Records read, tombstones and malformed ones included.
        public var records = 0
        /// Distinct orders left after keeping the latest per key.
        public var orders = 0
        /// Orders written to the index.
        public var written = 0
        /// Orders the index held already (kept as they were).
        public var alreadyPresent = 0
        /// Records that are not an `iap.order.v1` event (skipped; match rejects them too).
        public var malformed = 0
        /// Keys whose latest record is a tombstone.
        public var deleted = 0

        public init() {}
    }

    /// Reads `topic` up to its current end and writes the orders into `index`. Fails when no
    /// record arrives for `idleTimeout` before every partition was read to its end.
    public static func run(
        bootstrapServers: String, topic: String, index: RedisOrderIndex, logger: Logger,
        kafkaProperties: [String: String] = [:], idleTimeout: Duration = .seconds(30)
    ) async throws -> Report {
        let snapshot = try await CompactedTopicSnapshot.read(
            topic: topic, bootstrapServers: bootstrapServers, kafkaProperties: kafkaProperties,
            purpose: "iap-orders-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in try EventDecoder.decode(OrderEvent.self, from: bytes) },
            fallbackKey: { "orderId:\($0.orderId)" }
        )
        var report = Report()
        report.records = snapshot.records
        report.malformed = snapshot.malformed
        report.deleted = snapshot.deleted
        report.orders = snapshot.latest.count
        for order in snapshot.latest.values {
            if try await index.putIfAbsent(order) { report.written += 1 } else { report.alreadyPresent += 1 }
        }
        return report
    }
}
