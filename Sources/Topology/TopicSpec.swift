/// A Kafka topic the pipeline needs, as `iap topics create` creates it.
public struct TopicSpec: Sendable, Hashable, Decodable {
    /// Kafka's `cleanup.policy`.
    public enum CleanupPolicy: String, Sendable, Hashable, Decodable {
        case delete
        /// Keeps the latest message per key (orders, looked up by appAccountToken).
        case compact
    }

    public var name: String
    public var partitions: Int
    public var replicationFactor: Int
    public var cleanupPolicy: CleanupPolicy
    /// `retention.ms`; nil keeps the broker default.
    public var retention: PipelineDuration?

    public init(
        name: String, partitions: Int, replicationFactor: Int = 1, cleanupPolicy: CleanupPolicy = .delete,
        retention: PipelineDuration? = nil
    ) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.cleanupPolicy = cleanupPolicy
        self.retention = retention
    }

    private enum CodingKeys: String, CodingKey {
        case name, partitions, replicationFactor, cleanupPolicy, retention
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            partitions: try container.decode(Int.self, forKey: .partitions),
            replicationFactor: try container.decodeIfPresent(Int.self, forKey: .replicationFactor) ?? 1,
            cleanupPolicy: try container.decodeIfPresent(CleanupPolicy.self, forKey: .cleanupPolicy) ?? .delete,
            retention: try container.decodeIfPresent(PipelineDuration.self, forKey: .retention)
        )
    }
}
