import Basics
internal import CRdKafka

/// A consumer group as the cluster lists it.
public struct ConsumerGroupListing: Sendable, Hashable {
    public var group: String
    /// The coordinator's word for it: `Stable`, `Empty` (no members), `PreparingRebalance`, …
    public var state: String
    /// A group that only commits offsets (`assign`, no subscription).
    public var isSimple: Bool

    public init(group: String, state: String, isSimple: Bool = false) {
        self.group = group
        self.state = state
        self.isSimple = isSimple
    }
}

/// Lag of every group on the cluster, as `kafka-consumer-groups --all-groups --describe` shows it.
public struct ClusterLag: Sendable {
    /// Every partition of every topic a group committed on.
    public var rows: [ConsumerLag]
    /// Groups the cluster lists that hold no committed offset (nothing to show per partition).
    public var groupsWithoutOffsets: [ConsumerGroupListing]

    public init(rows: [ConsumerLag], groupsWithoutOffsets: [ConsumerGroupListing]) {
        self.rows = rows
        self.groupsWithoutOffsets = groupsWithoutOffsets
    }
}

/// What ``ClusterLag/survey(_:timeout:)`` needs of a cluster (``KafkaAdmin``, or a stand-in).
public protocol ConsumerGroupDirectory: Sendable {
    func consumerGroups(timeout: Duration) async throws(KafkaError) -> [ConsumerGroupListing]
    /// Every partition `group` committed on, with its committed offset.
    func committedOffsets(group: String, timeout: Duration) async throws(KafkaError) -> [TopicPartition: Int64]
    func consumerLag(group: String, topics: [String], timeout: Duration) async throws(KafkaError) -> [ConsumerLag]
}

extension ClusterLag {
    /// Lists every group, finds the topics each committed on, and reports lag on every
    /// partition of those topics (partitions without a commit included), sorted by group,
    /// topic and partition.
    public static func survey(_ directory: some ConsumerGroupDirectory, timeout: Duration = .seconds(10))
        async throws(KafkaError) -> ClusterLag
    {
        var rows: [ConsumerLag] = []
        var without: [ConsumerGroupListing] = []
        let groups = try await directory.consumerGroups(timeout: timeout).sorted { $0.group < $1.group }
        for listing in groups {
            let topics = Set(
                try await directory.committedOffsets(group: listing.group, timeout: timeout).keys.map(\.topic))
            guard !topics.isEmpty else {
                without.append(listing)
                continue
            }
            rows += try await directory.consumerLag(group: listing.group, topics: topics.sorted(), timeout: timeout)
        }
        rows.sort { ($0.group, $0.topic, $0.partition) < ($1.group, $1.topic, $1.partition) }
        return ClusterLag(rows: rows, groupsWithoutOffsets: without)
    }
}

extension KafkaAdmin: ConsumerGroupDirectory {
    /// Every consumer group the cluster knows (Admin ListConsumerGroups, librdkafka ≥ 2.0), with
    /// its state. Throws when any broker could not answer: a partial list would hide groups.
    ///
    /// librdkafka's mock cluster does not implement ListGroups; there this throws.
    public func consumerGroups(timeout: Duration = .seconds(10)) async throws(KafkaError) -> [ConsumerGroupListing] {
        let client = self.client
        return try await BlockingExecutor.run { () throws(KafkaError) -> [ConsumerGroupListing] in
            let handle = client.handle
            let milliseconds = Int32(timeout.milliseconds(rounding: .towardZero))
            let queue = rd_kafka_queue_new(handle)
            defer { rd_kafka_queue_destroy(queue) }
            let options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS)
            defer { rd_kafka_AdminOptions_destroy(options) }
            var errstr = [CChar](repeating: 0, count: 256)
            _ = rd_kafka_AdminOptions_set_request_timeout(options, milliseconds, &errstr, errstr.count)
            rd_kafka_ListConsumerGroups(handle, options, queue)
            guard let event = rd_kafka_queue_poll(queue, milliseconds + 1000) else {
                throw KafkaError(code: .query, message: "list consumer groups: timed out")
            }
            defer { rd_kafka_event_destroy(event) }
            if rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR {
                throw KafkaError(
                    code: .query,
                    message: "list consumer groups: \(String(cString: rd_kafka_event_error_string(event)))",
                    librdkafkaCode: rd_kafka_event_error(event).rawValue)
            }
            guard let result = rd_kafka_event_ListConsumerGroups_result(event) else {
                throw KafkaError(code: .query, message: "list consumer groups: unexpected event")
            }
            var errorCount = 0
            if let errors = rd_kafka_ListConsumerGroups_result_errors(result, &errorCount), errorCount > 0,
                let first = errors[0]
            {
                // Owned by the result: read, never destroy.
                throw KafkaError(
                    code: .query,
                    message: "list consumer groups: \(String(cString: rd_kafka_error_string(first)))"
                        + (errorCount > 1 ? " (and \(errorCount - 1) more brokers)" : ""),
                    librdkafkaCode: rd_kafka_error_code(first).rawValue)
            }
            var count = 0
            guard let listings = rd_kafka_ListConsumerGroups_result_valid(result, &count) else { return [] }
            return (0..<count).compactMap { index -> ConsumerGroupListing? in
                guard let listing = listings[index] else { return nil }
                return ConsumerGroupListing(
                    group: String(cString: rd_kafka_ConsumerGroupListing_group_id(listing)),
                    state: String(
                        cString: rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupListing_state(listing))),
                    isSimple: rd_kafka_ConsumerGroupListing_is_simple_consumer_group(listing) != 0)
            }
        }
    }

    /// Every partition `group` committed on (OffsetFetch for all topics), with its offset.
    ///
    /// librdkafka's mock cluster answers this with nothing; pass partitions there
    /// (``committedOffsets(group:partitions:timeout:)``).
    public func committedOffsets(group: String, timeout: Duration = .seconds(10)) async throws(KafkaError)
        -> [TopicPartition: Int64]
    {
        let client = self.client
        return try await BlockingExecutor.run { () throws(KafkaError) -> [TopicPartition: Int64] in
            try Self.listGroupOffsets(client.handle, group: group, partitions: nil, timeout: timeout)
        }
    }
}
