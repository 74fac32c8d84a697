/// A topic to create: what `iap topics create` and the dev broker read from the pipeline file.
public struct TopicSpecification: Sendable, Hashable {
    public var name: String
    public var partitions: Int32
    public var replicationFactor: Int32
    /// Topic configs such as `cleanup.policy=compact` or `retention.ms`.
    public var config: [String: String]

    public init(name: String, partitions: Int32, replicationFactor: Int32, config: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.config = config
    }
}
