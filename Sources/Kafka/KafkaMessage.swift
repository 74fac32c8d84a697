/// A record read from Kafka, copied out of librdkafka's buffer so it can cross tasks freely.
public struct KafkaMessage: Sendable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// Milliseconds since the epoch, when the broker or producer set one.
    public var timestampMilliseconds: Int64?

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = [],
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

/// A record to write. `partition == nil` lets the partitioner choose from the key.
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
