/// "Has a reader seen everything written so far?": the offset of each partition's last record
/// now, against the highest offset a reader has read. Once the writers have stopped, a reader
/// at these offsets has all there is, so a count it takes then is final.
extension KafkaAdmin {
    /// The offset of the last record of each partition of `topics` that holds any (high
    /// watermark − 1); partitions with nothing between low and high watermark are left out.
    public func lastOffsets(of topics: [String]) async throws(KafkaError) -> [TopicPartition: Int64] {
        let partitions = try await partitionCounts(of: topics).flatMap { topic, count in
            (0..<count).map { TopicPartition(topic, $0) }
        }
        let lows = try await lowWatermarks(partitions)
        let highs = try await highWatermarks(partitions)
        return highs.reduce(into: [:]) { last, entry in
            if entry.value > (lows[entry.key] ?? 0) { last[entry.key] = entry.value - 1 }
        }
    }
}

extension Sequence<KafkaMessage> {
    /// The highest offset among these records, per partition.
    public func lastOffsets() -> [TopicPartition: Int64] {
        reduce(into: [:]) { last, record in
            last[record.topicPartition] = Swift.max(last[record.topicPartition] ?? -1, record.offset)
        }
    }
}

extension Dictionary where Key == TopicPartition, Value == Int64 {
    /// The partitions of these last offsets that `read` (``Swift/Sequence/lastOffsets()``) has
    /// not reached yet.
    public func unreached(by read: [TopicPartition: Int64]) -> [TopicPartition] {
        compactMap { partition, last in (read[partition] ?? -1) < last ? partition : nil }.sorted()
    }
}
