import Foundation
public import Kafka
public import Logging
import Purchases
import Synchronization

/// Rebuilds the Redis order index from the compacted `iap.orders` topic (`iap orders rebuild`):
/// after Redis lost its data, after orders expired under a `retention`, or to check the index.
///
/// It reads every partition from its low watermark to the high watermark it found at the start
/// in a throwaway consumer group that commits nothing, so match's own group and offsets are
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

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads `topic` up to its current end and writes the orders into `index`. Fails when no
    /// record arrives for `idleTimeout` before every partition was read to its end.
    public static func run(
        bootstrapServers: String, topic: String, index: RedisOrderIndex, logger: Logger, idleTimeout: Duration = .seconds(30)
    ) async throws -> Report {
        let admin = try KafkaAdmin(bootstrapServers: bootstrapServers, clientId: "iap-orders-rebuild", logger: logger)
        guard let count = try await admin.partitionCounts(of: [topic])[topic], count > 0 else {
            throw Failure(description: "topic \(topic) does not exist")
        }
        let partitions = (0..<count).map { TopicPartition(topic, $0) }
        let lows = try await admin.lowWatermarks(partitions)
        let highs = try await admin.highWatermarks(partitions)
        let ends = Dictionary(uniqueKeysWithValues: partitions.compactMap { partition -> (TopicPartition, Int64)? in
            guard let high = highs[partition], high > lows[partition] ?? 0 else { return nil }
            return (partition, high)
        })
        var report = Report()
        var latest: [String: OrderEvent?] = [:]
        if !ends.isEmpty {
            let records = try await read(bootstrapServers: bootstrapServers, topic: topic, ends: ends, logger: logger, idleTimeout: idleTimeout)
            report.records = records.count
            for record in records {
                let key = record.key.map { String(decoding: $0, as: UTF8.self) }
                if record.value.isEmpty {
                    if let key { latest[key] = .some(nil) }
                    continue
                }
                do throws(PurchaseRejection) {
                    let order = try EventDecoder.decode(OrderEvent.self, from: record.value)
                    latest[key ?? "orderId:\(order.orderId)"] = order
                } catch {
                    report.malformed += 1
                    logger.warning("skipped a record that is not an order", metadata: [
                        "partition": "\(record.partition)", "offset": "\(record.offset)", "reason": "\(error)",
                    ])
                }
            }
        }
        for case let order? in latest.values {
            report.orders += 1
            if try await index.putIfAbsent(order) { report.written += 1 } else { report.alreadyPresent += 1 }
        }
        report.deleted = latest.values.count { $0 == nil }
        return report
    }

    /// Every record of `ends`' partitions below their end offsets, in offset order per partition.
    private static func read(
        bootstrapServers: String, topic: String, ends: [TopicPartition: Int64], logger: Logger, idleTimeout: Duration
    ) async throws -> [KafkaMessage] {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: bootstrapServers, groupId: "iap-orders-rebuild-\(UUID().uuidString)", topics: [topic])
        configuration.clientId = "iap-orders-rebuild"
        configuration.autoOffsetReset = "earliest"
        configuration.sessionTimeout = .seconds(10)
        configuration.heartbeatInterval = .seconds(1)
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        let progress = Progress(remaining: Set(ends.keys))
        do {
            let records = try await withThrowingTaskGroup(of: [KafkaMessage]?.self) { group in
                group.addTask {
                    var records: [KafkaMessage] = []
                    for await event in consumer.events {
                        guard case .messages(let batch) = event else {
                            if case .revoked(_, _, let acknowledgement) = event { acknowledgement.acknowledge() }
                            continue
                        }
                        let done = progress.state.withLock { progress in
                            for record in batch {
                                let partition = record.topicPartition
                                guard let end = ends[partition], record.offset < end else { continue }
                                records.append(record)
                                if record.offset == end - 1 { progress.remaining.remove(partition) }
                            }
                            progress.lastRecord = .now
                            return progress.remaining.isEmpty
                        }
                        if done { return records }
                    }
                    return nil
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: .milliseconds(200))
                        let (idle, remaining) = progress.state.withLock { (ContinuousClock.now - $0.lastRecord, $0.remaining) }
                        if idle > idleTimeout {
                            let names = remaining.sorted().map(\.description).joined(separator: ", ")
                            throw Failure(description: "no record for \(idleTimeout) before reaching the end of \(names)")
                        }
                    }
                }
                defer { group.cancelAll() }
                while let finished = try await group.next() {
                    if let records = finished { return records }
                }
                throw Failure(description: "the consumer stopped before reaching the end of \(topic)")
            }
            await consumer.close()
            return records
        } catch {
            await consumer.close()
            throw error
        }
    }

    /// What the reading task and its watchdog share.
    private final class Progress: Sendable {
        let state: Mutex<(remaining: Set<TopicPartition>, lastRecord: ContinuousClock.Instant)>

        init(remaining: Set<TopicPartition>) {
            self.state = Mutex((remaining: remaining, lastRecord: .now))
        }
    }
}
