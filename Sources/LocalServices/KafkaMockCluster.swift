public import Basics
internal import CRdKafka
public import Kafka
public import Logging

/// librdkafka's in-process mock cluster: real Kafka protocol on loopback, no JVM.
///
/// It is the embedded broker of `iap-dev dev up` and the broker of every test; all clients connect
/// to `bootstrapServers` over TCP exactly as they would to a real cluster. Fault hooks take
/// brokers down and inject request errors, which is how the tests prove nothing is lost.
public final class KafkaMockCluster: Sendable {
    /// The cluster, destroyed before `owner` (an assert fires in the other order).
    private let cluster: MockClusterHandle
    private let owner: RDKafkaClient
    public let bootstrapServers: String
    public let brokerCount: Int32

    public init(brokers: Int32 = 1, logger: Logger) throws(KafkaError) {
        let owner = try RDKafkaClient.make(
            kind: .producer, properties: [:], context: .logging(to: logger))
        guard let cluster = rd_kafka_mock_cluster_new(owner.handle, brokers) else {
            throw KafkaError(code: .mockCluster, message: "rd_kafka_mock_cluster_new failed")
        }
        self.owner = owner
        self.cluster = MockClusterHandle(pointer: cluster)
        self.brokerCount = brokers
        self.bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
    }

    deinit {
        let (cluster, owner) = (self.cluster, self.owner)
        BlockingExecutor.detach {
            rd_kafka_mock_cluster_destroy(cluster.pointer)
            withExtendedLifetime(owner) {}
        }
    }

    // Every call below hands an operation to the cluster's own thread and waits for it, which
    // on a busy cluster (a test process's shared one) takes seconds: they wait on
    // `BlockingExecutor`, never on the cooperative pool (a CI run lost tests to both of its
    // threads waiting in `rd_kafka_mock_topic_create`).

    public func createTopic(_ name: String, partitions: Int32, replicationFactor: Int32 = 1) async throws(KafkaError) {
        let (cluster, replicas) = (self.cluster, min(replicationFactor, brokerCount))
        let err = await BlockingExecutor.run { rd_kafka_mock_topic_create(cluster.pointer, name, partitions, replicas) }
        if err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS {
            throw KafkaError.from(err, code: .mockCluster, context: "create topic \(name)")
        }
    }

    /// Disconnects and refuses clients of one broker (ids start at 1), with no leader change.
    public func setBrokerDown(_ brokerId: Int32) async throws(KafkaError) {
        try await check("broker \(brokerId) down") { rd_kafka_mock_broker_set_down($0, brokerId) }
    }

    public func setBrokerUp(_ brokerId: Int32) async throws(KafkaError) {
        try await check("broker \(brokerId) up") { rd_kafka_mock_broker_set_up($0, brokerId) }
    }

    /// Moves a partition's leadership to `brokerId`, so a test can take one topic's partitions
    /// down with their broker while the rest stay up.
    public func setPartitionLeader(_ topic: String, partition: Int32, broker brokerId: Int32) async throws(KafkaError) {
        try await check("leader of \(topic)/\(partition)") {
            rd_kafka_mock_partition_set_leader($0, topic, partition, brokerId)
        }
    }

    /// Makes `brokerId` the coordinator of consumer group `group`.
    public func setGroupCoordinator(_ group: String, broker brokerId: Int32) async throws(KafkaError) {
        try await check("coordinator of \(group)") { rd_kafka_mock_coordinator_set($0, "group", group, brokerId) }
    }

    /// The next requests of `apiKey` fail with these errors, in order.
    public func pushRequestErrors(_ apiKey: APIKey, _ errors: [ErrorCode]) async {
        let cluster = self.cluster
        await BlockingExecutor.run {
            var codes = errors.map { rd_kafka_resp_err_t(rawValue: $0.rawValue) }
            rd_kafka_mock_push_request_errors_array(cluster.pointer, apiKey.rawValue, codes.count, &codes)
        }
    }

    public func clearRequestErrors(_ apiKey: APIKey) async {
        let cluster = self.cluster
        await BlockingExecutor.run { rd_kafka_mock_clear_request_errors(cluster.pointer, apiKey.rawValue) }
    }

    private func check(_ context: String, _ call: @escaping @Sendable (OpaquePointer) -> rd_kafka_resp_err_t)
        async throws(KafkaError)
    {
        let cluster = self.cluster
        let err = await BlockingExecutor.run { call(cluster.pointer) }
        if err != RD_KAFKA_RESP_ERR_NO_ERROR { throw KafkaError.from(err, code: .mockCluster, context: context) }
    }

    /// Kafka protocol API keys the fault hooks target.
    public struct APIKey: Sendable, Hashable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        public static let produce = APIKey(rawValue: 0)
        public static let fetch = APIKey(rawValue: 1)
        public static let listOffsets = APIKey(rawValue: 2)
        public static let metadata = APIKey(rawValue: 3)
        public static let offsetCommit = APIKey(rawValue: 8)
        public static let offsetFetch = APIKey(rawValue: 9)
        public static let findCoordinator = APIKey(rawValue: 10)
        public static let joinGroup = APIKey(rawValue: 11)
        public static let heartbeat = APIKey(rawValue: 12)
        public static let syncGroup = APIKey(rawValue: 14)
    }

    /// Broker error codes (Kafka protocol numbers) to inject.
    public struct ErrorCode: OpenEnumeration {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let notLeaderForPartition = ErrorCode(rawValue: 6)
        public static let requestTimedOut = ErrorCode(rawValue: 7)
        public static let notEnoughReplicas = ErrorCode(rawValue: 19)
        public static let notCoordinator = ErrorCode(rawValue: 16)
        public static let coordinatorLoadInProgress = ErrorCode(rawValue: 14)
        public static let rebalanceInProgress = ErrorCode(rawValue: 27)
        /// librdkafka's local `__TRANSPORT`: the broker connection drops.
        public static let transport = ErrorCode(rawValue: -195)
    }
}

/// `@unchecked Sendable`: the mock cluster's functions lock internally (they are called from
/// test threads while the cluster thread runs); the pointer itself is immutable.
private struct MockClusterHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
