/// A record read from Kafka, copied out of librdkafka's buffer so it can cross tasks freely.
///
/// Key and value are slices of a buffer shared by the records of one poll (at most
/// ``KafkaMessage/chunkBytes`` each): one allocation per chunk instead of two per record, which
/// is what kept the consumer from librdkafka's own rate (docs/performance.md). A record held
/// long keeps its chunk alive; the runtime's bounded buffer bounds that.
public struct KafkaMessage: Sendable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: ArraySlice<UInt8>?
    public var value: ArraySlice<UInt8>
    public var headers: [KafkaHeader]
    /// Milliseconds since the epoch, when the broker or producer set one.
    public var timestampMilliseconds: Int64?

    /// Records of one poll share buffers of about this size.
    public static let chunkBytes = 64 * 1024

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        self.init(
            topic: topic, partition: partition, offset: offset, key: key.map { $0[...] }, value: value[...],
            headers: headers,
            timestampMilliseconds: timestampMilliseconds)
    }

    public init(
        topic: String, partition: Int32, offset: Int64, key: ArraySlice<UInt8>?, value: ArraySlice<UInt8>,
        headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    public var topicPartition: TopicPartition { TopicPartition(topic, partition) }
}

/// A record to write. `partition == nil` lets the partitioner choose from the key. An empty
/// `value` is written as null, which a compacted topic takes as a tombstone for the key.
public struct KafkaRecord: Sendable {
    public var topic: String
    public var partition: Int32?
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]

    public init(topic: String, partition: Int32? = nil, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = []) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
    }

    public init(topic: String, key: String?, value: String, headers: [KafkaHeader] = []) {
        self.init(topic: topic, key: key.map { Array($0.utf8) }, value: Array(value.utf8), headers: headers)
    }
}

/// Where a record landed once the broker acknowledged it.
public struct KafkaDeliveryReport: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
}
