import Contracts
public import Kafka
public import Logging
import Purchases
public import WorkerCommon

/// Rebuilds the Redis order index from the compacted `iap.orders` topic (`iap orders rebuild`):
/// after Redis lost its data, after orders expired under a `retention`, or to check the index.
///
/// It reads the topic as compaction leaves it (``CompactedTopicSnapshot``: the latest record
/// per Kafka key, the appAccountToken, in a throwaway group, so match may keep running) and
/// writes each order with ``RedisOrderIndex/putIfAbsent(_:)``, so an order match stored
/// meanwhile is never replaced by an older copy.
public enum OrderIndexRebuild {
    /// Reads `topic` up to its current end and writes the orders into `index`. Fails when no
    /// record arrives for `idleTimeout` before every partition was read to its end.
    public static func run(
        cluster: KafkaCluster, topic: String, index: RedisOrderIndex, logger: Logger,
        idleTimeout: Duration = .seconds(30)
    ) async throws -> RebuildReport {
        let snapshot = try await CompactedTopicSnapshot.read(
            topic: topic, cluster: cluster,
            purpose: "iap-orders-rebuild", logger: logger, idleTimeout: idleTimeout,
            decode: { bytes throws(Rejection) in try EventDecoder.decode(OrderEvent.self, from: bytes) },
            fallbackKey: { "orderId:\($0.orderId)" }
        )
        var written = 0
        for order in snapshot.latest.values where try await index.putIfAbsent(order) { written += 1 }
        return RebuildReport(snapshot, written: written)
    }
}
