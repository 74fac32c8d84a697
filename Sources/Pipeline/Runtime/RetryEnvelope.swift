import Foundation
import Kafka

/// A record parked in the retry store: enough to re-publish it to its input topic.
struct RetryEnvelope: Codable, Sendable {
    var topic: String
    var key: [UInt8]?
    var value: [UInt8]
    var headers: [Header]
    var attempt: Int
    var lastError: String

    struct Header: Codable, Sendable {
        var name: String
        var value: [UInt8]?
    }

    init(message: KafkaMessage, attempt: Int, lastError: String) {
        topic = message.topic
        key = message.key.map(Array.init)
        value = Array(message.value)
        headers = message.headers.filter { $0.name != PipelineHeaders.attempt }.map { Header(name: $0.name, value: $0.value) }
        self.attempt = attempt
        self.lastError = lastError
    }

    /// Stable per delivery, so scheduling the same delivery twice (after a crash) is one retry.
    static func id(for message: KafkaMessage, attempt: Int) -> String {
        "\(message.topic)/\(message.partition)/\(message.offset)/\(attempt)"
    }

    var record: KafkaRecord {
        KafkaRecord(
            topic: topic, key: key, value: value,
            headers: headers.map { KafkaHeader(name: $0.name, value: $0.value) }
                + [KafkaHeader(name: PipelineHeaders.attempt, string: String(attempt)),
                   KafkaHeader(name: PipelineHeaders.lastError, string: lastError)]
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
}
