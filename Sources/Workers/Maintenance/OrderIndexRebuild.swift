import Contracts
import Foundation
import Kafka
public import Logging
import Purchases

/// Rebuilds the Redis order index from the compacted `iap.orders` topic (`iap orders rebuild`):
/// after Redis lost its data, after orders expired under a `retention`, or to check the index.
///
/// It reads every partition up to the end it has at the start (``BoundedTopicRead``) in a
/// throwaway consumer group that commits nothing, so match's own group and offsets are
/// untouched and match may keep running. Like compaction, it keeps the latest record per Kafka
/// key (the appAccountToken) and lets a tombstone delete its key; it then writes each order
/// with ``RedisOrderIndex/putIfAbsent(_:)``, so an order match stored meanwhile is never
/// replaced by an older copy.
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
        idleTimeout: Duration = .seconds(30)
    ) async throws -> Report {
        let configuration = BoundedTopicRead.configuration(
            bootstrapServers: bootstrapServers, groupId: "iap-orders-rebuild-\(UUID().uuidString)", topic: topic,
            clientId: "iap-orders-rebuild"
        )
        let records = try await BoundedTopicRead.run(configuration, logger: logger, idleTimeout: idleTimeout) {
            records, _ in records
        }
        var report = Report()
        var latest: [String: OrderEvent?] = [:]
        report.records = records.count
        for record in records {
            let key = record.key.map { String(decoding: $0, as: UTF8.self) }
            if record.value.isEmpty {
                if let key { latest[key] = .some(nil) }
                continue
            }
            do throws(Rejection) {
                let order = try EventDecoder.decode(OrderEvent.self, from: record.value)
                latest[key ?? "orderId:\(order.orderId)"] = order
            } catch {
                report.malformed += 1
                logger.warning(
                    "skipped a record that is not an order",
                    metadata: [
                        "partition": "\(record.partition)", "offset": "\(record.offset)", "reason": "\(error)",
                    ])
            }
        }
        for case let order? in latest.values {
            report.orders += 1
            if try await index.putIfAbsent(order) { report.written += 1 } else { report.alreadyPresent += 1 }
        }
        report.deleted = latest.values.count { $0 == nil }
        return report
    }
}
