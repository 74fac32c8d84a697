import Basics
internal import CRdKafka
public import Logging

/// Cluster queries for operators and metrics: partition counts, watermarks, group offsets, lag.
///
/// Every call blocks on a broker round trip, so each runs on `BlockingExecutor` with its
/// timeout honoured. High watermarks come from `rd_kafka_offsets_for_times(OFFSET_END)`,
/// because 2.0.2's `query_watermark_offsets` ignores its timeout (librdkafka #4460).
public final class KafkaAdmin: Sendable {
    let client: RDKafkaClient

    /// - Parameter properties: librdkafka properties (`security.protocol`, SASL, …); consumer-only
    ///   ones are dropped, since the admin client is a producer handle.
    public init(
        bootstrapServers: String, clientId: String = "iap-admin", properties: [String: String] = [:], logger: Logger
    ) throws(KafkaError) {
        var properties = KafkaProducerConfiguration.producerProperties(properties)
        properties["bootstrap.servers"] = bootstrapServers
        properties["client.id"] = clientId
        client = try RDKafkaClient.make(
            kind: .producer,
            properties: properties,
            context: RDKafkaCallbackContext(logger: logger)
        )
    }

    /// Partition counts of the named topics; topics the cluster does not know are left out.
    public func partitionCounts(of topics: [String], timeout: Duration = .seconds(10)) async throws(KafkaError)
        -> [String: Int32]
    {
        let client = self.client
        return try await BlockingExecutor.run { () throws(KafkaError) -> [String: Int32] in
            var metadata: UnsafePointer<rd_kafka_metadata>?
            let err = rd_kafka_metadata(
                client.handle, 1, nil, &metadata, Int32(timeout.milliseconds(rounding: .towardZero)))
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
                throw KafkaError.from(err, code: .query, context: "metadata")
            }
            defer { rd_kafka_metadata_destroy(metadata) }
            let wanted = Set(topics)
            var counts: [String: Int32] = [:]
            for index in 0..<Int(metadata.pointee.topic_cnt) {
                let topic = metadata.pointee.topics[index]
                let name = String(cString: topic.topic)
                if wanted.contains(name), topic.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                    counts[name] = topic.partition_cnt
                }
            }
            return counts
        }
    }

    /// The log-end offset (high watermark) of each partition.
    public func highWatermarks(_ partitions: [TopicPartition], timeout: Duration = .seconds(10))
        async throws(KafkaError) -> [TopicPartition: Int64]
    {
        try await self.offsets(partitions, at: Int64(RD_KAFKA_OFFSET_END), what: "high watermark", timeout: timeout)
    }

    /// The first offset still held (low watermark) of each partition: where a replay starts.
    public func lowWatermarks(_ partitions: [TopicPartition], timeout: Duration = .seconds(10)) async throws(KafkaError)
        -> [TopicPartition: Int64]
    {
        try await self.offsets(
            partitions, at: Int64(RD_KAFKA_OFFSET_BEGINNING), what: "low watermark", timeout: timeout)
    }

    private func offsets(_ partitions: [TopicPartition], at logical: Int64, what: String, timeout: Duration)
        async throws(KafkaError) -> [TopicPartition: Int64]
    {
        // librdkafka refuses an empty list (invalid argument); a replica between assignments asks this.
        guard !partitions.isEmpty else { return [:] }
        let client = self.client
        return try await BlockingExecutor.run { () throws(KafkaError) -> [TopicPartition: Int64] in
            let list = RDKafkaPartitionList.make(partitions, offset: logical)
            defer { RDKafkaPartitionList.destroy(list) }
            let err = rd_kafka_offsets_for_times(
                client.handle, list, Int32(timeout.milliseconds(rounding: .towardZero)))
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.from(err, code: .query, context: "\(what)s")
            }
            var result: [TopicPartition: Int64] = [:]
            for (entry, partitionErr) in RDKafkaPartitionList.read(list) {
                guard partitionErr == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw KafkaError.from(partitionErr, code: .query, context: "\(what) of \(entry.topicPartition)")
                }
                result[entry.topicPartition] = entry.offset
            }
            return result
        }
    }

    /// A group's committed offsets; a partition with no commit is absent from the result.
    public func committedOffsets(group: String, partitions: [TopicPartition], timeout: Duration = .seconds(10))
        async throws(KafkaError) -> [TopicPartition: Int64]
    {
        guard !partitions.isEmpty else { return [:] }
        let client = self.client
        return try await BlockingExecutor.run { () throws(KafkaError) -> [TopicPartition: Int64] in
            try Self.listGroupOffsets(client.handle, group: group, partitions: partitions, timeout: timeout)
        }
    }

    /// Lag per partition of `topics` for `group`, the figure dashboards and autoscalers read:
    /// every partition of every topic, whether or not the group committed there or has members.
    public func consumerLag(group: String, topics: [String], timeout: Duration = .seconds(10)) async throws(KafkaError)
        -> [ConsumerLag]
    {
        let counts = try await partitionCounts(of: topics, timeout: timeout)
        let partitions = topics.flatMap { topic in (0..<(counts[topic] ?? 0)).map { TopicPartition(topic, $0) } }
        guard !partitions.isEmpty else { return [] }
        let watermarks = try await self.watermarks(partitions, timeout: timeout)
        let committed = try await committedOffsets(group: group, partitions: partitions, timeout: timeout)
        return partitions.map { partition in
            ConsumerLag(
                group: group, topic: partition.topic, partition: partition.partition,
                committedOffset: committed[partition], highWatermark: watermarks[partition]?.high ?? 0,
                lowWatermark: watermarks[partition]?.low ?? 0
            )
        }
    }

    /// Both watermarks of each partition: where its retained log starts and where it ends.
    public func watermarks(_ partitions: [TopicPartition], timeout: Duration = .seconds(10))
        async throws(KafkaError) -> [TopicPartition: (low: Int64, high: Int64)]
    {
        let high = try await highWatermarks(partitions, timeout: timeout)
        let low = try await lowWatermarks(partitions, timeout: timeout)
        var result: [TopicPartition: (low: Int64, high: Int64)] = [:]
        for partition in partitions {
            result[partition] = (low: low[partition] ?? 0, high: high[partition] ?? 0)
        }
        return result
    }

    /// Creates topics; ones that already exist count as created (the command is re-runnable).
    /// Real brokers only: librdkafka's mock cluster does not implement CreateTopics.
    public func createTopics(_ topics: [TopicSpecification], timeout: Duration = .seconds(30)) async throws(KafkaError)
    {
        guard !topics.isEmpty else { return }
        let client = self.client
        try await BlockingExecutor.run { () throws(KafkaError) in
            var errstr = [CChar](repeating: 0, count: 512)
            var newTopics: [OpaquePointer?] = []
            defer { for topic in newTopics { rd_kafka_NewTopic_destroy(topic) } }
            for topic in topics {
                guard
                    let newTopic = rd_kafka_NewTopic_new(
                        topic.name, topic.partitions, topic.replicationFactor, &errstr, errstr.count)
                else {
                    throw KafkaError(code: .query, message: "topic \(topic.name): \(String(cString: errstr))")
                }
                newTopics.append(newTopic)
                for (key, value) in topic.config.sorted(by: { $0.key < $1.key }) {
                    _ = rd_kafka_NewTopic_set_config(newTopic, key, value)
                }
            }
            let queue = rd_kafka_queue_new(client.handle)
            defer { rd_kafka_queue_destroy(queue) }
            let options = rd_kafka_AdminOptions_new(client.handle, RD_KAFKA_ADMIN_OP_CREATETOPICS)
            defer { rd_kafka_AdminOptions_destroy(options) }
            _ = rd_kafka_AdminOptions_set_operation_timeout(
                options, Int32(timeout.milliseconds(rounding: .towardZero)), &errstr, errstr.count)
            rd_kafka_CreateTopics(client.handle, &newTopics, newTopics.count, options, queue)
            guard let event = rd_kafka_queue_poll(queue, Int32(timeout.milliseconds(rounding: .towardZero)) + 5000)
            else {
                throw KafkaError(code: .query, message: "create topics: timed out")
            }
            defer { rd_kafka_event_destroy(event) }
            if rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR {
                throw KafkaError(
                    code: .query, message: "create topics: \(String(cString: rd_kafka_event_error_string(event)))")
            }
            var count = 0
            guard let result = rd_kafka_event_CreateTopics_result(event),
                let results = rd_kafka_CreateTopics_result_topics(result, &count)
            else { return }
            for index in 0..<count {
                guard let topicResult = results[index] else { continue }
                let err = rd_kafka_topic_result_error(topicResult)
                if err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS {
                    let name = String(cString: rd_kafka_topic_result_name(topicResult))
                    let message = rd_kafka_topic_result_error_string(topicResult).map { String(cString: $0) } ?? ""
                    throw KafkaError(
                        code: .query, message: "create topic \(name): \(message)", librdkafkaCode: err.rawValue)
                }
            }
        }
    }

    static func listGroupOffsets(
        _ handle: OpaquePointer, group: String, partitions: [TopicPartition]?, timeout: Duration
    ) throws(KafkaError) -> [TopicPartition: Int64] {
        let queue = rd_kafka_queue_new(handle)
        defer { rd_kafka_queue_destroy(queue) }
        let options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS)
        defer { rd_kafka_AdminOptions_destroy(options) }
        var errstr = [CChar](repeating: 0, count: 256)
        _ = rd_kafka_AdminOptions_set_request_timeout(
            options, Int32(timeout.milliseconds(rounding: .towardZero)), &errstr, errstr.count)
        // Explicit partitions where the caller knows them: the mock cluster (and some brokers)
        // answer NULL with nothing. NULL (`partitions` nil) asks for every committed partition.
        let list = partitions.map { RDKafkaPartitionList.make($0) }
        defer { if let list { RDKafkaPartitionList.destroy(list) } }
        var request: OpaquePointer? = rd_kafka_ListConsumerGroupOffsets_new(group, list)
        defer { rd_kafka_ListConsumerGroupOffsets_destroy(request) }
        rd_kafka_ListConsumerGroupOffsets(handle, &request, 1, options, queue)
        guard let event = rd_kafka_queue_poll(queue, Int32(timeout.milliseconds(rounding: .towardZero)) + 1000) else {
            throw KafkaError(code: .query, message: "list group offsets of \(group): timed out")
        }
        defer { rd_kafka_event_destroy(event) }
        if rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR {
            throw KafkaError(
                code: .query,
                message: "list group offsets of \(group): \(String(cString: rd_kafka_event_error_string(event)))")
        }
        guard let result = rd_kafka_event_ListConsumerGroupOffsets_result(event) else {
            throw KafkaError(code: .query, message: "list group offsets of \(group): unexpected event")
        }
        var count = 0
        guard let groups = rd_kafka_ListConsumerGroupOffsets_result_groups(result, &count), count > 0,
            let groupResult = groups[0]
        else { return [:] }
        if let error = rd_kafka_group_result_error(groupResult) {
            // Owned by the result: read, never destroy.
            throw KafkaError(
                code: .query,
                message: "list group offsets of \(group): \(String(cString: rd_kafka_error_string(error)))")
        }
        guard let offsets = rd_kafka_group_result_partitions(groupResult) else { return [:] }
        var committed: [TopicPartition: Int64] = [:]
        for (entry, err) in RDKafkaPartitionList.read(offsets)
        where err == RD_KAFKA_RESP_ERR_NO_ERROR && entry.offset >= 0 {
            committed[entry.topicPartition] = entry.offset
        }
        return committed
    }
}
