import Kafka
import LocalServices
import Synchronization
import TestSupport
import Testing

/// `iap lag` with neither `--group` nor `--pipeline`: every group on the cluster, like
/// `kafka-consumer-groups --all-groups --describe` (decision D26).
@Suite(.timeLimit(.minutes(2))) struct ClusterLagTests {
    /// A cluster whose group listing and all-topics offset fetch are stubbed (librdkafka's mock
    /// cluster implements neither ListGroups nor OffsetFetch for all topics), while lag itself
    /// comes from the real mock cluster.
    struct Directory: ConsumerGroupDirectory {
        var groups: [ConsumerGroupListing]
        var committed: [String: [TopicPartition: Int64]]
        var admin: KafkaAdmin

        func consumerGroups(timeout: Duration) async throws(KafkaError) -> [ConsumerGroupListing] { groups }

        func committedOffsets(group: String, timeout: Duration) async throws(KafkaError) -> [TopicPartition: Int64] {
            committed[group] ?? [:]
        }

        func consumerLag(group: String, topics: [String], timeout: Duration) async throws(KafkaError)
            -> [ConsumerLag]
        {
            try await admin.consumerLag(group: group, topics: topics, timeout: timeout)
        }
    }

    @Test func listsEveryGroupOnEveryPartitionOfTheTopicsItCommittedOn() async throws {
        let cluster = try await TestKafka.cluster(topics: ["orders": 2, "audit": 1])
        let producer = try TestKafka.producer(cluster)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        try await TestKafka.publish(producer, topic: "orders", count: 10)
        try await TestKafka.publish(producer, topic: "audit", count: 3)

        // "reader" consumes orders and commits, then leaves: an Empty group that still has lag.
        let probe = try ConsumerProbe(cluster, group: "reader", topics: ["orders"])
        try await probe.waitForMessages(10)
        try probe.storeAll()
        try await probe.consumer.commit()
        await probe.close()
        try await TestKafka.publish(producer, topic: "orders", count: 4, prefix: "late")
        let committed = try await admin.committedOffsets(
            group: "reader", partitions: [TopicPartition("orders", 0), TopicPartition("orders", 1)])

        let directory = Directory(
            groups: [
                ConsumerGroupListing(group: "reader", state: "Empty"),
                ConsumerGroupListing(group: "idle", state: "Empty"),
            ],
            committed: ["reader": committed], admin: admin)
        let survey = try await ClusterLag.survey(directory)
        #expect(survey.rows.map(\.group) == ["reader", "reader"])
        #expect(survey.rows.map(\.topic) == ["orders", "orders"])
        #expect(survey.rows.map(\.partition) == [0, 1])
        #expect(survey.rows.reduce(0) { $0 + $1.lag } == 4)
        #expect(survey.groupsWithoutOffsets.map(\.group) == ["idle"])
        await producer.close()
    }

    /// The real listing call on the mock cluster, which does not implement ListGroups: it
    /// must end in an error naming the call (not hang, not an empty list passed off as "no groups").
    @Test func listingOnAClusterWithoutListGroupsFailsClearly() async throws {
        let cluster = try await TestKafka.cluster(topics: ["orders": 1])
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        let outcome = Mutex<String>("")
        do {
            let groups = try await admin.consumerGroups(timeout: .seconds(5))
            outcome.withLock { $0 = "listed \(groups)" }
        } catch {
            outcome.withLock { $0 = "\(error)" }
        }
        let text = outcome.withLock { $0 }
        #expect(text.contains("list consumer groups"), "\(text)")
    }
}
