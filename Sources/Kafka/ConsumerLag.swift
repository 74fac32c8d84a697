/// Lag of one consumer group on one partition.
///
/// Field meanings match danielqsj/kafka_exporter, so the same dashboards and alerts work:
/// lag = high watermark − committed offset; with no commit yet, kafka_exporter reports -1.
public struct ConsumerLag: Sendable, Hashable, Codable {
    public var group: String
    public var topic: String
    public var partition: Int32
    /// The next offset the group will read, or `nil` when it never committed on this partition.
    public var committedOffset: Int64?
    public var highWatermark: Int64

    public init(group: String, topic: String, partition: Int32, committedOffset: Int64?, highWatermark: Int64) {
        self.group = group
        self.topic = topic
        self.partition = partition
        self.committedOffset = committedOffset
        self.highWatermark = highWatermark
    }

    /// Messages not yet committed; -1 when the group has no commit (kafka_exporter's convention).
    public var lag: Int64 {
        guard let committedOffset else { return -1 }
        return max(0, highWatermark - committedOffset)
    }
}
