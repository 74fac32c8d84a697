/// A partition of a topic, the unit of assignment, ordering and offset tracking.
public struct TopicPartition: Hashable, Sendable, CustomStringConvertible, Comparable {
    public var topic: String
    public var partition: Int32

    public init(_ topic: String, _ partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }

    public static func < (lhs: TopicPartition, rhs: TopicPartition) -> Bool {
        (lhs.topic, lhs.partition) < (rhs.topic, rhs.partition)
    }
}

/// A partition with an offset: a committed position, a watermark or a position to store.
public struct TopicPartitionOffset: Hashable, Sendable {
    public var topicPartition: TopicPartition
    public var offset: Int64

    public init(_ topicPartition: TopicPartition, offset: Int64) {
        self.topicPartition = topicPartition
        self.offset = offset
    }
}
