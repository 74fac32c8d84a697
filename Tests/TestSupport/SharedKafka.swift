public import Kafka
public import LocalServices
import Synchronization

/// One test's topics and groups on the process's shared mock cluster, named apart from every
/// other test's by a prefix of their own (`t<8 hex>.`): a prefix, not a suffix, so names a
/// component derives from another (`<input>.dlq`) carry it too.
public struct SharedKafka: Sendable {
    public let cluster: KafkaMockCluster
    /// `t<8 hex>.`, the same for every name of this test; empty on a cluster of the test's own.
    public let prefix: String

    /// Names on `cluster` under `prefix`. A test with a cluster of its own (it injects faults)
    /// passes an empty prefix, so harnesses written for names take its plain names as they are.
    public init(cluster: KafkaMockCluster, prefix: String = "") {
        self.cluster = cluster
        self.prefix = prefix
    }

    /// The cluster's name for this test's topic `name`.
    public func topic(_ name: String) -> String { prefix + name }

    /// A consumer group of this test's own.
    public func group(_ name: String) -> String { prefix + name }
}

extension TestKafka {
    /// The mock cluster of the whole test process, created on first use and never destroyed.
    ///
    /// A cluster per test was hundreds of cluster lifecycles a run, and librdkafka 2.0.2's mock
    /// misbehaves there: a test process once hung with one thread in
    /// `rd_kafka_mock_cluster_destroy` on freed memory and another in `rd_kafka_mock_topic_create`.
    /// Never destroying it avoids that path altogether; the process's exit takes it down.
    /// Tests that change the cluster for everyone (brokers down, injected request errors) keep a
    /// cluster of their own from ``cluster(topics:brokers:)``, as do those that look at every
    /// group or topic of a cluster.
    private static let sharedCluster = Result { () throws(KafkaError) -> KafkaMockCluster in
        try KafkaMockCluster(brokers: 1, logger: logger)
    }

    /// Prefixes handed out so far: a counter, so no two tests of a process share one.
    private static let prefixes = Atomic<UInt32>(0)

    /// Creates `topics` (name: partitions) under a fresh prefix on the shared cluster.
    public static func shared(topics: [String: Int32] = [:]) async throws -> SharedKafka {
        let cluster = try sharedCluster.get()
        let hex = String(prefixes.wrappingAdd(1, ordering: .relaxed).newValue, radix: 16)
        let kafka = SharedKafka(cluster: cluster, prefix: "t\(String(repeating: "0", count: 8 - hex.count))\(hex).")
        for (topic, partitions) in topics { try await cluster.createTopic(kafka.topic(topic), partitions: partitions) }
        return kafka
    }
}
