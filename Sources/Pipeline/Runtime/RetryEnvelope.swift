import Foundation
import Kafka

/// A record parked in the retry store: enough to re-publish it to its input topic, or to the
/// stage's retry topic (D67).
struct RetryEnvelope: Codable, Sendable {
    /// Where the promoter re-publishes the record.
    var topic: String
    var key: [UInt8]?
    var value: [UInt8]
    var headers: [Header]
    var attempt: Int
    var lastError: String
    /// When the record first waited (UNIX ms), carried on every later delivery.
    var waitingSince: Int64?
    /// The stage's memo of the wait this delivery ends; nil for a retry.
    var waitMemo: String?
    /// The id the delivery was scheduled under, carried on the re-published record so the
    /// delivery knows itself from the wait it was (``PipelineHeaders/deliveryId``).
    var deliveryId: String?

    struct Header: Codable, Sendable {
        var name: String
        var value: [UInt8]?
    }

    /// - Parameters:
    ///   - destination: the stage's retry topic; nil re-publishes to the topic the record came
    ///     from.
    ///   - waitingSince: when the record began to wait; nil keeps what the record carries.
    ///   - waitMemo: the memo of the wait this delivery is for; a memo the record carried is
    ///     dropped, since it belonged to the wait that delivered it.
    init(
        message: KafkaMessage, returningTo destination: String? = nil, attempt: Int, lastError: String,
        waitingSince: Date? = nil, waitMemo: String? = nil, deliveryId: String? = nil
    ) {
        topic = destination ?? message.topic
        key = message.key.map(Array.init)
        value = Array(message.value)
        headers = message.headers
            .filter { !Self.rewrittenHeaders.contains($0.name) }
            .map { Header(name: $0.name, value: $0.value) }
        self.attempt = attempt
        self.lastError = lastError
        self.waitingSince = waitingSince.map(\.unixMilliseconds) ?? message.waitingSince.map(\.unixMilliseconds)
        self.waitMemo = waitMemo
        self.deliveryId = deliveryId
    }

    /// Headers the envelope writes anew on the re-published record.
    private static let rewrittenHeaders: Set<String> = [
        PipelineHeaders.attempt, PipelineHeaders.lastError, PipelineHeaders.waitingSince, PipelineHeaders.waitMemo,
        PipelineHeaders.deliveryId,
    ]

    /// Stable per delivery, so scheduling the same delivery twice (after a crash) is one retry.
    static func id(for message: KafkaMessage, attempt: Int) -> String {
        "\(message.topic)/\(message.partition)/\(message.offset)/\(attempt)"
    }

    /// Stable per delivery for a wait, apart from the delivery's retry ids.
    static func waitId(for message: KafkaMessage) -> String {
        "\(message.topic)/\(message.partition)/\(message.offset)/wait"
    }

    var record: KafkaRecord {
        KafkaRecord(
            topic: topic, key: key, value: value,
            headers: headers.map { KafkaHeader(name: $0.name, value: $0.value) }
                + [
                    KafkaHeader(name: PipelineHeaders.attempt, string: String(attempt)),
                    KafkaHeader(name: PipelineHeaders.lastError, string: lastError),
                ]
                + (waitingSince.map { [KafkaHeader(name: PipelineHeaders.waitingSince, string: String($0))] } ?? [])
                + (waitMemo.map { [KafkaHeader(name: PipelineHeaders.waitMemo, string: $0)] } ?? [])
                + (deliveryId.map { [KafkaHeader(name: PipelineHeaders.deliveryId, string: $0)] } ?? [])
        )
    }

    func encoded() throws -> [UInt8] { Array(try JSONEncoder().encode(self)) }

    static func decode(_ bytes: [UInt8]) throws -> RetryEnvelope {
        try JSONDecoder().decode(RetryEnvelope.self, from: Data(bytes))
    }
}

/// Header names the runtime writes. DLQ headers follow Karafka's `source_*` convention so
/// existing tooling recognises them.
public enum PipelineHeaders {
    public static let attempt = "iap_attempt"
    public static let lastError = "iap_last_error"
    /// UNIX milliseconds when the record first waited (``StageOutcome/wait(_:)``).
    public static let waitingSince = "iap_waiting_since"
    /// The stage's memo of the wait that delivered the record (``StageOutcome/Wait/memo``).
    public static let waitMemo = "iap_wait_memo"
    /// The retry or wait id a re-published record was scheduled under.
    public static let deliveryId = "iap_delivery_id"
    public static let sourceTopic = "source_topic"
    public static let sourcePartition = "source_partition"
    public static let sourceOffset = "source_offset"
    public static let sourceAttempts = "source_attempts"
    public static let sourceConsumerGroup = "source_consumer_group"
    public static let rejectReason = "reject_reason"
}

extension KafkaMessage {
    /// The attempt counter the promoter wrote, 0 for a first delivery or a foreign header.
    var attempt: Int {
        headers.last(named: PipelineHeaders.attempt)?.stringValue.flatMap(Int.init) ?? 0
    }

    /// The retry or wait id this record was re-published from; nil for a first delivery.
    var deliveryId: String? {
        headers.last(named: PipelineHeaders.deliveryId)?.stringValue
    }

    /// The memo of the wait that delivered this record, from the header the runtime wrote.
    var waitMemo: String? {
        headers.last(named: PipelineHeaders.waitMemo)?.stringValue
    }

    /// When the record first waited, from the header the runtime wrote; nil otherwise.
    var waitingSince: Date? {
        headers.last(named: PipelineHeaders.waitingSince)?.stringValue.flatMap(Int64.init).map {
            Date(timeIntervalSince1970: Double($0) / 1000)
        }
    }
}

extension InboundMessage {
    /// The record as delivered, with what the runtime's headers say of its earlier tries.
    init(delivered record: KafkaMessage) {
        self.init(
            record: record, attempt: record.attempt, waitingSince: record.waitingSince, waitMemo: record.waitMemo)
    }
}

extension Date {
    var unixMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
}
