internal import CRdKafka

/// Conversions between `rd_kafka_topic_partition_list_t` and Swift values.
///
/// Lists built here are owned by the caller of `make` and must be passed to `destroy`; lists
/// librdkafka hands to callbacks are only read with `read` and never destroyed here.
enum RDKafkaPartitionList {
    static func make(_ entries: [TopicPartitionOffset]) -> UnsafeMutablePointer<rd_kafka_topic_partition_list_t> {
        let list = rd_kafka_topic_partition_list_new(Int32(entries.count))!
        for entry in entries {
            let element = rd_kafka_topic_partition_list_add(
                list, entry.topicPartition.topic, entry.topicPartition.partition)!
            element.pointee.offset = entry.offset
        }
        return list
    }

    static func make(_ partitions: [TopicPartition], offset: Int64 = Int64(RD_KAFKA_OFFSET_INVALID))
        -> UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
    {
        make(partitions.map { TopicPartitionOffset($0, offset: offset) })
    }

    static func read(_ list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> [(
        TopicPartitionOffset, rd_kafka_resp_err_t
    )] {
        let count = Int(list.pointee.cnt)
        guard count > 0, let elements = list.pointee.elems else { return [] }
        return (0..<count).map { index in
            let element = elements[index]
            let partition = TopicPartition(String(cString: element.topic), element.partition)
            return (TopicPartitionOffset(partition, offset: element.offset), element.err)
        }
    }

    static func destroy(_ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) {
        rd_kafka_topic_partition_list_destroy(list)
    }
}
