/// One worker stage: what it consumes, what it may produce, and how it retries.
public struct StageSpec: Sendable, Hashable, Decodable {
    public static let defaultMaxInFlight = 256

    public var name: String
    /// Kafka consumer group; lag dashboards and autoscaling key on it.
    public var consumerGroup: String
    public var inputs: [String]
    public var outputs: [String]
    /// The inputs by role when the file names them (`inputs: {verified: iap.verified, …}`):
    /// a stage that reads its topics differently asks for them by role, never by position.
    public var inputRoles: [String: String]
    /// The outputs by role (`outputs: {matched: iap.matched, unmatched: iap.unmatched}`).
    public var outputRoles: [String: String]
    /// Where events refused for a reason code go (`iap.rejected`); nil if the stage never rejects.
    public var rejectTopic: String?
    /// Where the stage appends what it decided about each record (`iap.audit`, decision D51);
    /// nil for a stage that keeps no audit trail.
    public var auditTopic: String?
    /// Messages processed concurrently before partitions are paused.
    public var maxInFlight: Int
    public var retry: RetryPolicy
    /// Named waiting windows, e.g. match's `unmatched: 24h`.
    public var windows: [String: PipelineDuration]
    /// Where the stage's due retries and waits come back, when not to the input they came from
    /// (decision D67): a topic no other group reads, for a stage whose input others read too.
    /// Its settings are derived from the widest input unless the file declares it.
    public var retryTopic: String?

    public init(
        name: String,
        consumerGroup: String,
        inputs: [String],
        outputs: [String],
        rejectTopic: String? = nil,
        auditTopic: String? = nil,
        maxInFlight: Int = StageSpec.defaultMaxInFlight,
        retry: RetryPolicy = RetryPolicy(),
        windows: [String: PipelineDuration] = [:],
        retryTopic: String? = nil
    ) {
        self.name = name
        self.retryTopic = retryTopic
        self.auditTopic = auditTopic
        self.consumerGroup = consumerGroup
        self.inputs = inputs
        self.outputs = outputs
        self.inputRoles = [:]
        self.outputRoles = [:]
        self.rejectTopic = rejectTopic
        self.maxInFlight = maxInFlight
        self.retry = retry
        self.windows = windows
    }

    /// The compacted topic journaling this stage's retries and waits (``DeliveryJournal``):
    /// derived from the consumer group, one per stage, like the dead-letter topics.
    public var journalTopic: String { consumerGroup + ".delayed" }

    /// Every topic the stage's consumer group reads: its inputs, then its retry topic.
    public var consumedTopics: [String] { inputs + (retryTopic.map { [$0] } ?? []) }

    private enum CodingKeys: String, CodingKey {
        case name, consumerGroup, inputs, outputs, rejectTopic, auditTopic, maxInFlight, retry, windows, retryTopic
    }

    /// A stage with named topic roles.
    public init(
        name: String, consumerGroup: String, inputRoles: [String: String], outputRoles: [String: String],
        rejectTopic: String? = nil, auditTopic: String? = nil,
        maxInFlight: Int = StageSpec.defaultMaxInFlight, retry: RetryPolicy = RetryPolicy(),
        windows: [String: PipelineDuration] = [:], retryTopic: String? = nil
    ) {
        self.init(
            name: name, consumerGroup: consumerGroup, inputs: Self.topics(inputRoles),
            outputs: Self.topics(outputRoles), rejectTopic: rejectTopic, auditTopic: auditTopic,
            maxInFlight: maxInFlight, retry: retry, windows: windows, retryTopic: retryTopic
        )
        self.inputRoles = inputRoles
        self.outputRoles = outputRoles
    }

    /// The topic playing `role` among the inputs.
    public func input(_ role: String) throws(PipelineFileError) -> String {
        guard let topic = inputRoles[role] else { throw missingRole(role, kind: "inputs", roles: inputRoles) }
        return topic
    }

    /// The topic playing `role` among the outputs.
    public func output(_ role: String) throws(PipelineFileError) -> String {
        guard let topic = outputRoles[role] else { throw missingRole(role, kind: "outputs", roles: outputRoles) }
        return topic
    }

    private func missingRole(_ role: String, kind: String, roles: [String: String]) -> PipelineFileError {
        let named = roles.isEmpty ? "names none" : "names \(roles.keys.sorted().joined(separator: ", "))"
        return PipelineFileError(
            code: .missingRole,
            message: "stage '\(name)' needs its \(kind) by role, with '\(role)' among them; it \(named)")
    }

    /// Topics in role order, so a file's meaning does not depend on how YAML orders a mapping.
    private static func topics(_ roles: [String: String]) -> [String] {
        roles.sorted { $0.key < $1.key }.map(\.value)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let inputs = try container.decode(TopicList.self, forKey: .inputs)
        let outputs =
            try container.decodeIfPresent(TopicList.self, forKey: .outputs) ?? TopicList(topics: [], roles: [:])
        self.init(
            name: try container.decode(String.self, forKey: .name),
            consumerGroup: try container.decode(String.self, forKey: .consumerGroup),
            inputs: inputs.topics,
            outputs: outputs.topics,
            rejectTopic: try container.decodeIfPresent(String.self, forKey: .rejectTopic),
            auditTopic: try container.decodeIfPresent(String.self, forKey: .auditTopic),
            maxInFlight: try container.decodeIfPresent(Int.self, forKey: .maxInFlight) ?? Self.defaultMaxInFlight,
            retry: try container.decodeIfPresent(RetryPolicy.self, forKey: .retry) ?? RetryPolicy(),
            windows: try container.decodeIfPresent([String: PipelineDuration].self, forKey: .windows) ?? [:],
            retryTopic: try container.decodeIfPresent(String.self, forKey: .retryTopic)
        )
        self.inputRoles = inputs.roles
        self.outputRoles = outputs.roles
    }

    private struct RoleKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// `[a, b]` (topics without roles) or `{role: topic, …}`.
    private struct TopicList: Decodable {
        var topics: [String]
        var roles: [String: String]

        init(topics: [String], roles: [String: String]) {
            self.topics = topics
            self.roles = roles
        }

        init(from decoder: any Decoder) throws {
            if let list = try? [String](from: decoder) {
                self.init(topics: list, roles: [:])
                return
            }
            // In the file's order: consumers subscribe, and `iap topics` lists, as written.
            let mapping = try decoder.container(keyedBy: RoleKey.self)
            var topics: [String] = []
            var roles: [String: String] = [:]
            for key in mapping.allKeys {
                let topic = try mapping.decode(String.self, forKey: key)
                topics.append(topic)
                roles[key.stringValue] = topic
            }
            self.init(topics: topics, roles: roles)
        }
    }
}
