import Basics

/// Settings for `KafkaConsumer`.
///
/// The consumer is built for at-least-once processing with concurrent completion: offsets are
/// never stored automatically (`enable.auto.offset.store=false`); the application stores the
/// lowest contiguous completed offset + 1 and librdkafka's timer commits what was stored.
public struct KafkaConsumerConfiguration: Sendable {
    /// `bootstrap.servers`.
    public var bootstrapServers: String
    /// `group.id`: every replica of one stage shares it.
    public var groupId: String
    /// Topics to subscribe to.
    public var topics: [String]
    /// Partitions to read from these offsets instead of subscribing to `topics`: the consumer
    /// never joins `groupId` (no rebalance, no first-join delay — about 3 s on a fresh group)
    /// and commits only what the application stores. For readers that know where to start,
    /// such as a tail from the high watermarks; `topics` is then ignored.
    public var assignment: [TopicPartitionOffset]?
    /// `client.id`: unique per replica (e.g. `iap-verify-<hostname>`).
    public var clientId: String = "iap"
    /// `group.instance.id`: static membership, so a restarted replica gets its partitions back
    /// without a rebalance of the whole group (set it from the host name in Kubernetes).
    public var groupInstanceId: String?
    /// `session.timeout.ms`.
    public var sessionTimeout: Duration = .seconds(45)
    /// `heartbeat.interval.ms`.
    public var heartbeatInterval: Duration = .seconds(3)
    /// `auto.commit.interval.ms`: how often stored offsets are committed in the background.
    public var autoCommitInterval: Duration = .seconds(1)
    /// `auto.offset.reset` for partitions with no committed offset: `earliest` so nothing
    /// published before a group first starts is skipped.
    public var autoOffsetReset: String = "earliest"
    /// `partition.assignment.strategy`.
    public var assignmentStrategy: String = "cooperative-sticky"
    /// Most messages handed over per event; larger batches amortise the hand-off cost.
    public var maxBatchSize: Int = 1000
    /// How long a revocation waits for the application to drain the revoked partitions.
    public var revocationDrainTimeout: Duration = .seconds(20)
    /// Any other librdkafka property, applied last.
    public var additionalProperties: [String: String] = [:]

    public init(bootstrapServers: String, groupId: String, topics: [String]) {
        self.bootstrapServers = bootstrapServers
        self.groupId = groupId
        self.topics = topics
    }

    var properties: [String: String] {
        var properties = [
            "bootstrap.servers": bootstrapServers,
            "group.id": groupId,
            "client.id": clientId,
            "session.timeout.ms": String(sessionTimeout.milliseconds(rounding: .towardZero)),
            "heartbeat.interval.ms": String(heartbeatInterval.milliseconds(rounding: .towardZero)),
            "enable.auto.commit": "true",
            "enable.auto.offset.store": "false",
            "auto.commit.interval.ms": String(autoCommitInterval.milliseconds(rounding: .towardZero)),
            "auto.offset.reset": autoOffsetReset,
            "partition.assignment.strategy": assignmentStrategy,
            // Bound librdkafka's prefetch: paused partitions stop here, not at 64 MiB.
            "queued.max.messages.kbytes": "16384",
        ]
        if let groupInstanceId { properties["group.instance.id"] = groupInstanceId }
        properties.merge(additionalProperties) { _, new in new }
        return properties
    }
}
