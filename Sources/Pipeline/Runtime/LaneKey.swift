import Kafka

/// The serialisation unit: records with the same key never run concurrently.
///
/// Keys are business ids (originalTransactionId, userId, appAccountToken), so two events for
/// one purchase can never race inside a worker. A record without a key is its own lane.
enum LaneKey: Hashable {
    case key(ArraySlice<UInt8>)
    case record(TopicPartition, Int64)

    init(_ message: KafkaMessage) {
        if let key = message.key, !key.isEmpty {
            self = .key(key)
        } else {
            self = .record(message.topicPartition, message.offset)
        }
    }
}
