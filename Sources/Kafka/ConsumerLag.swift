/// Lag of one consumer group on one partition.
///
/// Field meanings match danielqsj/kafka_exporter (`kafka_consumergroup_lag`,
/// `kafka_consumergroup_current_offset`), so the same dashboards and alerts work, with one
/// deliberate difference (decision D26): a partition the group never committed on counts what
/// the group will read when it starts, the whole retained log under `auto.offset.reset=earliest`
/// (high − low watermark), where kafka_exporter reports -1. Sums over partitions then say how
/// much is waiting, whether or not the group ever ran.
public struct ConsumerLag: Sendable, Hashable, Codable {
    public var group: String
    public var topic: String
    public var partition: Int32
    /// The next offset the group will read, or `nil` when it never committed on this partition.
    public var committedOffset: Int64?
    /// The log-end offset: the offset the next record written will get.
    public var highWatermark: Int64
    /// The first offset still retained: where a group with no commit starts (`earliest`).
    public var lowWatermark: Int64

    public init(
        group: String, topic: String, partition: Int32, committedOffset: Int64?, highWatermark: Int64,
        lowWatermark: Int64 = 0
    ) {
        self.group = group
        self.topic = topic
        self.partition = partition
        self.committedOffset = committedOffset
        self.highWatermark = highWatermark
        self.lowWatermark = lowWatermark
    }

    /// Records the group has yet to read: high watermark − where it resumes, never negative.
    ///
    /// It resumes at its commit, or at the low watermark when it has none or the commit points
    /// below what retention kept (the consumer is reset to `earliest` there, too).
    public var lag: Int64 {
        max(0, highWatermark - max(committedOffset ?? lowWatermark, lowWatermark))
    }

    /// Whether the group committed on this partition.
    public var hasCommit: Bool { committedOffset != nil }
}
