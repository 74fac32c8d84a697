public import Kafka
public import LocalServices
public import Logging
import Synchronization

/// Kafka fixtures for tests: a fresh mock cluster per test, and client settings tuned so
/// rebalances take seconds (the mock waits up to `session.timeout.ms - 1000` for members).
public enum TestKafka {
    public static let logger: Logger = {
        var logger = Logger(label: "test.kafka")
        logger.logLevel = .warning
        return logger
    }()

    public static func cluster(topics: [String: Int32], brokers: Int32 = 1) async throws -> KafkaMockCluster {
        let cluster = try KafkaMockCluster(brokers: brokers, logger: logger)
        for (topic, partitions) in topics { try await cluster.createTopic(topic, partitions: partitions) }
        return cluster
    }

    public static func producer(_ cluster: KafkaMockCluster) throws -> KafkaProducer {
        try KafkaProducer(
            configuration: KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers), logger: logger)
    }

    public static func consumerConfiguration(_ cluster: KafkaMockCluster, group: String, topics: [String])
        -> KafkaConsumerConfiguration
    {
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: cluster.bootstrapServers, groupId: group, topics: topics)
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.autoCommitInterval = .milliseconds(200)
        return configuration
    }

    /// Publishes `count` records `"<prefix>-<i>"` keyed `k<i % keys>` and waits for every ack.
    public static func publish(
        _ producer: KafkaProducer, topic: String, count: Int, prefix: String = "m", keys: Int = 16
    ) async throws {
        let records = (0..<count).map { KafkaRecord(topic: topic, key: "k\($0 % keys)", value: "\(prefix)-\($0)") }
        _ = try await producer.send(records)
    }
}

/// Reads a consumer's events in the background and records what arrived, acknowledging
/// revocations at once, so tests can wait on observable state.
public final class ConsumerProbe: Sendable {
    public let consumer: KafkaConsumer
    private let box = StateBox()
    private let reader: Task<Void, Never>

    final class StateBox: Sendable {
        let state = Mutex(State())
    }

    struct State {
        var messages: [KafkaMessage] = []
        var assignment: Set<TopicPartition> = []
        var revocations: [[TopicPartition]] = []
    }

    /// A probe in consumer group `group` reading `topics` of `cluster` from their start.
    public convenience init(_ cluster: KafkaMockCluster, group: String, topics: [String]) throws {
        self.init(
            try KafkaConsumer(
                configuration: TestKafka.consumerConfiguration(cluster, group: group, topics: topics),
                logger: TestKafka.logger))
    }

    public init(_ consumer: KafkaConsumer) {
        self.consumer = consumer
        let box = self.box
        reader = Task {
            for await event in consumer.events {
                switch event {
                case .messages(let batch):
                    box.state.withLock { $0.messages.append(contentsOf: batch) }
                case .assigned(let partitions):
                    box.state.withLock { $0.assignment.formUnion(partitions) }
                case .revoked(let partitions, _, let acknowledgement):
                    box.state.withLock {
                        $0.assignment.subtract(partitions)
                        $0.revocations.append(partitions)
                    }
                    acknowledgement.acknowledge()
                }
            }
        }
    }

    public var messages: [KafkaMessage] { box.state.withLock { $0.messages } }
    public var assignment: Set<TopicPartition> { box.state.withLock { $0.assignment } }
    public var revocations: [[TopicPartition]] { box.state.withLock { $0.revocations } }

    /// Waits until at least `count` messages arrived and returns them.
    @discardableResult
    public func waitForMessages(_ count: Int, timeout: Duration = .seconds(30)) async throws -> [KafkaMessage] {
        try await eventually("\(count) messages (have \(messages.count))", timeout: timeout) {
            let messages = self.messages
            return messages.count >= count ? messages : nil
        }
    }

    /// Waits until every record of `topic` written so far has arrived (each partition read up
    /// to the high watermark taken now) and returns what arrived: once the writers have stopped,
    /// nothing more is coming, so a count taken then is final.
    @discardableResult
    public func waitUntilCaughtUp(on topic: String, admin: KafkaAdmin, timeout: Duration = .seconds(30))
        async throws -> [KafkaMessage]
    {
        let last = try await admin.lastOffsets(of: [topic])
        return try await eventually("\(topic) read up to \(last)", timeout: timeout) {
            let messages = self.messages
            return last.unreached(by: messages.lastOffsets()).isEmpty ? messages : nil
        }
    }

    /// Stores last offset + 1 for every partition seen so far.
    public func storeAll() throws {
        var next: [TopicPartition: Int64] = [:]
        for message in messages {
            next[message.topicPartition] = max(next[message.topicPartition] ?? 0, message.offset + 1)
        }
        try consumer.store(next.map { TopicPartitionOffset($0.key, offset: $0.value) })
    }

    public func close() async {
        await consumer.close()
        await reader.value
    }
}
