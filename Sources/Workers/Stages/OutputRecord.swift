import AppStoreModels
import Contracts
import Foundation
import Kafka
import Pipeline
import Purchases

extension KafkaRecord {
    /// A pipeline event as a Kafka record under its partition key.
    static func event(_ event: some PipelineEvent, topic: String, key: String) throws -> KafkaRecord {
        KafkaRecord(topic: topic, key: Array(key.utf8), value: try EventEncoder.encode(event))
    }
}

extension StageOutcome {
    static func reject(_ rejection: Rejection) -> StageOutcome {
        .reject(rejection.reason, detail: rejection.detail)
    }
}

extension InboundMessage {
    /// When the event entered Kafka (the producer's or broker's timestamp), so a retried record
    /// keeps the time it first arrived; now when the record has none.
    var receivedAt: Timestamp {
        record.timestampMilliseconds.map { Timestamp(millisecondsSince1970: $0) } ?? Timestamp(Date())
    }
}
