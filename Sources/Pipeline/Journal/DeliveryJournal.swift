public import Foundation
public import Kafka
public import Logging

/// The durable copy of a stage's scheduled deliveries (retries and waits): a compacted Kafka
/// topic keyed by delivery id, tombstoned once the delivery was re-published.
///
/// Redis holds the same deliveries as a delay queue, which is what the promoter polls; this
/// topic is what survives Redis losing its data (a failover to an async replica, a restart
/// without AOF). A record is written and acknowledged before its delivery enters the delay
/// queue, and before the input record's offset is stored, so every delivery the pipeline owes
/// is in Kafka (decision D19).
public struct DeliveryJournal: Sendable {
    /// Header with the due time, UNIX milliseconds.
    static let dueHeader = "iap_due_at"
    /// Header with the ``ScheduledDelivery/Kind``.
    static let kindHeader = "iap_delivery_kind"
    /// Headers of a wait: what it waits for, and since when (UNIX ms).
    static let waitingOnHeader = "iap_waiting_on"
    static let waitingSinceHeader = "iap_waiting_since"

    public let topic: String
    private let producer: KafkaProducer

    public init(topic: String, producer: KafkaProducer) {
        self.topic = topic
        self.producer = producer
    }

    /// Writes `delivery`, due at `due`, and waits for the broker's acknowledgement.
    public func record(_ delivery: ScheduledDelivery, due: Date) async throws {
        _ = try await producer.send(
            KafkaRecord(
                topic: topic, key: Array(delivery.id.utf8), value: delivery.payload,
                headers: [
                    KafkaHeader(name: Self.dueHeader, string: String(due.unixMilliseconds)),
                    KafkaHeader(name: Self.kindHeader, string: delivery.kind.rawValue),
                ]
                    + (delivery.waiting.map {
                        [
                            KafkaHeader(name: Self.waitingOnHeader, string: $0.on),
                            KafkaHeader(name: Self.waitingSinceHeader, string: String($0.since.unixMilliseconds)),
                        ]
                    } ?? [])
            ))
    }

    /// Tombstones the deliveries: they were re-published, so a rebuild must not owe them again.
    public func forget(_ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        _ = try await producer.send(ids.map { KafkaRecord(topic: topic, key: Array($0.utf8), value: []) })
    }

    /// What a read of the journal found: the deliveries still owed, latest record per id, each
    /// with its due time as `notBefore`.
    public struct Contents: Sendable {
        public var owed: [ScheduledDelivery] = []
        /// Records read, tombstones included.
        public var records = 0
        /// Records without a key or due time (not written by a journal); skipped.
        public var malformed = 0
    }

    /// Reads the journal up to its current end in a throwaway consumer group (nothing is
    /// committed), keeping the latest record per id as compaction would.
    public static func read(
        topic: String, cluster: KafkaCluster, logger: Logger,
        idleTimeout: Duration = .seconds(30)
    ) async throws -> Contents {
        let configuration = BoundedTopicRead.configuration(
            cluster: cluster, groupId: "iap-journal-read-\(UUID().uuidString)", topic: topic,
            clientId: "iap-journal-read"
        )
        let records = try await BoundedTopicRead.run(configuration, logger: logger, idleTimeout: idleTimeout) {
            records, _ in records
        }
        var contents = Contents()
        var latest: [String: ScheduledDelivery?] = [:]
        contents.records = records.count
        for record in records {
            guard let key = record.key.map({ String(decoding: $0, as: UTF8.self) }) else {
                contents.malformed += 1
                continue
            }
            if record.value.isEmpty {
                latest[key] = .some(nil)
                continue
            }
            guard let due = record.headers.last(named: dueHeader)?.stringValue.flatMap(Int64.init) else {
                contents.malformed += 1
                continue
            }
            let kind =
                record.headers.last(named: kindHeader)?.stringValue.flatMap(ScheduledDelivery.Kind.init(rawValue:))
                ?? .retry
            let dueDate = Date(timeIntervalSince1970: Double(due) / 1000)
            let waiting = record.headers.last(named: waitingOnHeader)?.stringValue.map { on in
                ScheduledDelivery.Waiting(
                    on: on,
                    since: record.headers.last(named: waitingSinceHeader)?.stringValue.flatMap(Int64.init).map {
                        Date(timeIntervalSince1970: Double($0) / 1000)
                    } ?? dueDate)
            }
            latest[key] = ScheduledDelivery(
                id: key, payload: Array(record.value), kind: kind, delay: .zero, notBefore: dueDate, waiting: waiting)
        }
        contents.owed = latest.values.compactMap { $0 }.sorted {
            ($0.notBefore ?? .distantPast, $0.id) < ($1.notBefore ?? .distantPast, $1.id)
        }
        return contents
    }
}
