import Contracts
import Foundation
import Kafka
import Topology

/// Builds the records the runtime writes for refused and dead-lettered input.
enum RejectRecord {
    /// `{"reason": "<code>", "detail": "...", "stage": "...", "event": <original>}`, the
    /// reject-topic contract. The original is embedded as JSON when it is JSON, as a string
    /// otherwise, and truncated when it is larger than a Kafka record may be.
    static func make(
        for message: KafkaMessage, reason: ReasonCode, detail: String, stage: String, topic: String, group: String
    ) -> KafkaRecord {
        var value = Array("{\"reason\":".utf8)
        value += jsonString(reason.rawValue)
        value += Array(",\"detail\":".utf8) + jsonString(detail)
        value += Array(",\"stage\":".utf8) + jsonString(stage)
        value += Array(",\"event\":".utf8) + embeddable(message.value)
        value.append(UInt8(ascii: "}"))
        return KafkaRecord(
            topic: topic, key: message.key.map(Array.init), value: value,
            headers: sourceHeaders(of: message, group: group) + [
                KafkaHeader(name: PipelineHeaders.rejectReason, string: reason.rawValue)
            ]
        )
    }

    /// The original record, unchanged, plus headers naming where it came from and why it died.
    static func deadLetter(_ message: KafkaMessage, attempts: Int, lastError: String, group: String) -> KafkaRecord {
        let headers =
            message.headers.filter { $0.name != PipelineHeaders.lastError }
            + sourceHeaders(of: message, group: group)
            + [
                KafkaHeader(name: PipelineHeaders.sourceAttempts, string: String(attempts)),
                KafkaHeader(name: PipelineHeaders.lastError, string: lastError),
            ]
        return KafkaRecord(
            topic: PipelineFile.dlqTopic(for: message.topic), key: message.key.map(Array.init),
            value: Array(message.value), headers: headers)
    }

    private static func sourceHeaders(of message: KafkaMessage, group: String) -> [KafkaHeader] {
        [
            KafkaHeader(name: PipelineHeaders.sourceTopic, string: message.topic),
            KafkaHeader(name: PipelineHeaders.sourcePartition, string: String(message.partition)),
            KafkaHeader(name: PipelineHeaders.sourceOffset, string: String(message.offset)),
            KafkaHeader(name: PipelineHeaders.sourceConsumerGroup, string: group),
        ]
    }

    private static let embedLimit = 64 * 1024

    private static func embeddable(_ value: ArraySlice<UInt8>) -> [UInt8] {
        if value.count <= embedLimit,
            (try? JSONSerialization.jsonObject(with: Data(value), options: [.fragmentsAllowed])) != nil
        {
            return Array(value)
        }
        let text = String(decoding: value.prefix(embedLimit / 16), as: UTF8.self)
        return jsonString(value.count > embedLimit / 16 ? text + "…(\(value.count) bytes)" : text)
    }

    private static func jsonString(_ text: String) -> [UInt8] {
        // Encoding a String cannot fail; the fallback only satisfies the type checker.
        (try? Array(JSONEncoder().encode(text))) ?? Array("\"\"".utf8)
    }
}
