/// One worker stage: what it consumes, what it may produce, and how it retries.
public struct StageSpec: Sendable, Hashable, Decodable {
    public static let defaultMaxInFlight = 256

    public var name: String
    /// Kafka consumer group; lag dashboards and autoscaling key on it.
    public var consumerGroup: String
    public var inputs: [String]
    public var outputs: [String]
    /// Where events refused for a reason code go (`iap.rejected`); nil if the stage never rejects.
    public var rejectTopic: String?
    /// Messages processed concurrently before partitions are paused.
    public var maxInFlight: Int
    public var retry: RetryPolicy
    /// Named waiting windows, e.g. match's `unmatched: 24h`.
    public var windows: [String: PipelineDuration]

    public init(
        name: String,
        consumerGroup: String,
        inputs: [String],
        outputs: [String],
        rejectTopic: String? = nil,
        maxInFlight: Int = StageSpec.defaultMaxInFlight,
        retry: RetryPolicy = RetryPolicy(),
        windows: [String: PipelineDuration] = [:]
    ) {
        self.name = name
        self.consumerGroup = consumerGroup
        self.inputs = inputs
        self.outputs = outputs
        self.rejectTopic = rejectTopic
        self.maxInFlight = maxInFlight
        self.retry = retry
        self.windows = windows
    }

    /// The compacted topic journaling this stage's retries and waits (``DeliveryJournal``):
    /// derived from the consumer group, one per stage, like the dead-letter topics.
    public var journalTopic: String { consumerGroup + ".delayed" }

    private enum CodingKeys: String, CodingKey {
        case name, consumerGroup, inputs, outputs, rejectTopic, maxInFlight, retry, windows
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            consumerGroup: try container.decode(String.self, forKey: .consumerGroup),
            inputs: try container.decode([String].self, forKey: .inputs),
            outputs: try container.decodeIfPresent([String].self, forKey: .outputs) ?? [],
            rejectTopic: try container.decodeIfPresent(String.self, forKey: .rejectTopic),
            maxInFlight: try container.decodeIfPresent(Int.self, forKey: .maxInFlight) ?? Self.defaultMaxInFlight,
            retry: try container.decodeIfPresent(RetryPolicy.self, forKey: .retry) ?? RetryPolicy(),
            windows: try container.decodeIfPresent([String: PipelineDuration].self, forKey: .windows) ?? [:]
        )
    }
}
