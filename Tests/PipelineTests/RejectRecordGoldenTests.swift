import Contracts
import Kafka
import Testing

@testable import Pipeline

/// The reject topic's record (`{"reason", "detail", "stage", "event"}` plus the `reject_reason`
/// header) byte for byte: a contract other systems parse, pinned before the reason codes moved
/// into one module.
@Suite(.timeLimit(.minutes(2))) struct RejectRecordGoldenTests {
    static func record(value: String) -> KafkaRecord {
        let message = KafkaMessage(
            topic: "iap.purchases", partition: 2, offset: 41, key: Array("u-1".utf8), value: Array(value.utf8))
        return RejectRecord.make(
            for: message, reason: .malformedEvent, detail: #"missing field 'bundleId' in a/b "q""#, stage: "intake",
            topic: "iap.rejected", group: "iap-intake"
        )
    }

    @Test func aJSONEventIsEmbedded() {
        let record = Self.record(value: #"{"schema":"iap.purchase.v1","eventId":"e/1"}"#)
        #expect(
            String(decoding: record.value, as: UTF8.self)
                == #"{"reason":"malformed_event","detail":"missing field 'bundleId' in a\/b \"q\"","stage":"intake","event":{"schema":"iap.purchase.v1","eventId":"e/1"}}"#
        )
        #expect(record.topic == "iap.rejected")
        #expect(record.key == Array("u-1".utf8))
        #expect(
            record.headers.map(\.name) == [
                "source_topic", "source_partition", "source_offset", "source_consumer_group", "reject_reason",
            ])
        #expect(
            record.headers.map { String(decoding: $0.value ?? [], as: UTF8.self) } == [
                "iap.purchases", "2", "41", "iap-intake", "malformed_event",
            ])
    }

    @Test func textThatIsNotJSONIsEmbeddedAsAString() {
        let record = Self.record(value: "not json/")
        #expect(
            String(decoding: record.value, as: UTF8.self)
                == #"{"reason":"malformed_event","detail":"missing field 'bundleId' in a\/b \"q\"","stage":"intake","event":"not json\/"}"#
        )
    }
}
