import Foundation
public import Logging

/// What a compacted topic holds now: the latest value per key, read up to the end the topic has
/// when the read starts, as compaction would leave it (a tombstone deletes its key).
///
/// The one reader behind every rebuild of Redis state from a compacted topic: match's order
/// index (`iap.orders`) and ownership bindings, grant's states. It reads in a throwaway consumer
/// group that commits nothing (``BoundedTopicRead``), so the stage's own group and offsets are
/// untouched and the stage may keep running.
public struct CompactedTopicSnapshot<Value: Sendable>: Sendable {
    /// Records read, tombstones and malformed ones included.
    public var records = 0
    /// The latest value of each key whose latest record is not a tombstone.
    public var latest: [String: Value] = [:]
    /// Keys whose latest record is a tombstone.
    public var deleted = 0
    /// Records `decode` refused (skipped and logged; the stage refuses them too).
    public var malformed = 0

    public init() {}

    /// Reads `topic` to its current end. A record's key is its Kafka key, or `fallbackKey` of its
    /// value when it has none; a tombstone without a key deletes nothing. Fails when no record
    /// arrives for `idleTimeout` before every partition was read to its end.
    ///
    /// - Parameter purpose: names the throwaway group and client, e.g. `iap-orders-rebuild`.
    /// - Parameter cluster: where the topic is and how to reach it (security, timeouts).
    public static func read(
        topic: String, cluster: KafkaCluster, purpose: String,
        logger: Logger, idleTimeout: Duration = .seconds(30),
        decode: ([UInt8]) throws -> Value, fallbackKey: (Value) -> String
    ) async throws -> Self {
        let configuration = BoundedTopicRead.configuration(
            cluster: cluster, groupId: "\(purpose)-\(UUID().uuidString)", topic: topic, clientId: purpose)
        let records = try await BoundedTopicRead.run(configuration, logger: logger, idleTimeout: idleTimeout) {
            records, _ in records
        }
        var snapshot = Self()
        var latest: [String: Value?] = [:]
        snapshot.records = records.count
        for record in records {
            let key = record.key.map { String(decoding: $0, as: UTF8.self) }
            if record.value.isEmpty {
                if let key { latest[key] = .some(nil) }
                continue
            }
            do {
                let value = try decode(Array(record.value))
                latest[key ?? fallbackKey(value)] = value
            } catch {
                snapshot.malformed += 1
                logger.warning(
                    "skipped a record of \(topic) that does not decode",
                    metadata: [
                        "partition": "\(record.partition)", "offset": "\(record.offset)", "reason": "\(error)",
                    ])
            }
        }
        for (key, value) in latest {
            if let value { snapshot.latest[key] = value } else { snapshot.deleted += 1 }
        }
        return snapshot
    }
}
