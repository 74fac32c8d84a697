import Foundation
import Yams

/// The topology file (`pipelines/iap.yaml`): the Kafka topics and the stages that connect them.
///
/// Dead-letter topics are derived, not declared: every topic `t` a stage consumes (its inputs
/// and its retry topic) gets `t.dlq` (see ``dlqTopic(for:)``) with the same partitions and
/// replication and the `delete` policy. Declaring `t.dlq` explicitly overrides the derived
/// settings; so does declaring a stage's ``StageSpec/retryTopic``.
public struct PipelineFile: Sendable, Hashable, Decodable {
    public var topics: [TopicSpec]
    public var stages: [StageSpec]

    public init(topics: [TopicSpec], stages: [StageSpec]) throws(PipelineFileError) {
        self.topics = topics
        self.stages = stages
        try validate()
    }

    /// Reads and validates the file at `path`.
    public static func load(path: String) throws(PipelineFileError) -> PipelineFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw PipelineFileError(code: .unreadable, message: "\(path): \(error.localizedDescription)")
        }
        return try parse(yaml: text, source: path)
    }

    /// Parses and validates YAML text; `source` names it in error messages.
    public static func parse(yaml: String, source: String = "pipeline file") throws(PipelineFileError) -> PipelineFile {
        let file: PipelineFile
        do {
            file = try YAMLDecoder().decode(PipelineFile.self, from: yaml)
        } catch {
            throw specificError(in: error) ?? PipelineFileError(code: .unreadable, message: "\(source): \(error)")
        }
        try file.validate()
        return file
    }

    /// The stage called `name`.
    public func stage(named name: String) throws(PipelineFileError) -> StageSpec {
        guard let stage = stages.first(where: { $0.name == name }) else {
            let known = stages.map(\.name).joined(separator: ", ")
            throw PipelineFileError(code: .unknownStage, message: "no stage '\(name)' (stages: \(known))")
        }
        return stage
    }

    /// Every topic a stage reads or writes: inputs, outputs, reject topic, audit topic, retry
    /// topic, the dead-letter topics of what it consumes and its delivery journal, in that order
    /// without duplicates.
    public func topics(for stageName: String) throws(PipelineFileError) -> [TopicSpec] {
        let all = allTopics
        var seen: Set<String> = []
        return topicNames(of: try stage(named: stageName)).filter { seen.insert($0).inserted }.compactMap { name in
            all.first { $0.name == name }
        }
    }

    /// The names ``topics(for:)`` lists, in its order, repeats included.
    private func topicNames(of stage: StageSpec) -> [String] {
        stage.inputs + stage.outputs + (stage.rejectTopic.map { [$0] } ?? []) + (stage.auditTopic.map { [$0] } ?? [])
            + (stage.retryTopic.map { [$0] } ?? []) + stage.consumedTopics.map(Self.dlqTopic(for:))
            + [stage.journalTopic]
    }

    /// The dead-letter topic for messages from `input` that exhausted their retries or waits:
    /// the one place the name is made, for the runtime that writes it and the tools that read it.
    public static func dlqTopic(for input: String) -> String { input + dlqSuffix }

    /// The topic a dead-letter topic's records came from, nil for a name that is none.
    public static func source(ofDeadLetterTopic topic: String) -> String? {
        topic.hasSuffix(dlqSuffix) ? String(topic.dropLast(dlqSuffix.count)) : nil
    }

    private static let dlqSuffix = ".dlq"

    /// Declared topics plus the derived ones, what `iap topics create` creates. Per stage: a
    /// retry topic it names but the file does not declare (as many partitions as its widest
    /// input, their replication, the longest input retention), a compacted delivery journal
    /// (``StageSpec/journalTopic``, partitions and replication alike); and a dead-letter topic
    /// per topic a stage consumes.
    public var allTopics: [TopicSpec] {
        var result = topics
        var names = Set(topics.map(\.name))
        for stage in stages {
            let inputs = topics.filter { stage.inputs.contains($0.name) }
            guard let widest = inputs.max(by: { $0.partitions < $1.partitions }) else { continue }
            if let retryTopic = stage.retryTopic, names.insert(retryTopic).inserted {
                result.append(
                    TopicSpec(
                        name: retryTopic, partitions: widest.partitions, replicationFactor: widest.replicationFactor,
                        retention: inputs.compactMap(\.retention).max { $0.duration < $1.duration }))
            }
            if names.insert(stage.journalTopic).inserted {
                result.append(
                    TopicSpec(
                        name: stage.journalTopic, partitions: widest.partitions,
                        replicationFactor: widest.replicationFactor, cleanupPolicy: .compact))
            }
        }
        for consumed in stages.flatMap(\.consumedTopics) {
            let dlq = Self.dlqTopic(for: consumed)
            guard !names.contains(dlq), let source = result.first(where: { $0.name == consumed }) else { continue }
            names.insert(dlq)
            result.append(
                TopicSpec(name: dlq, partitions: source.partitions, replicationFactor: source.replicationFactor))
        }
        return result
    }

    /// Checks names are unique, numbers are in range and every referenced topic is declared.
    public func validate() throws(PipelineFileError) {
        var topicNames: Set<String> = []
        for topic in topics {
            guard topicNames.insert(topic.name).inserted else {
                throw PipelineFileError(code: .duplicateName, message: "topic '\(topic.name)' is declared twice")
            }
            // Kafka's admin API and the mock cluster take both as `Int32`.
            let kafkaRange = 1...Int(Int32.max)
            guard kafkaRange.contains(topic.partitions), kafkaRange.contains(topic.replicationFactor) else {
                throw PipelineFileError(
                    code: .invalidValue,
                    message: "topic '\(topic.name)' needs 1 to \(Int32.max) partitions and replicas")
            }
        }
        var stageNames: Set<String> = []
        for stage in stages {
            guard stageNames.insert(stage.name).inserted else {
                throw PipelineFileError(code: .duplicateName, message: "stage '\(stage.name)' is declared twice")
            }
            guard !stage.inputs.isEmpty else {
                throw PipelineFileError(code: .invalidValue, message: "stage '\(stage.name)' has no input topics")
            }
            guard stage.maxInFlight >= 1 else {
                throw PipelineFileError(
                    code: .invalidValue, message: "stage '\(stage.name)' maxInFlight must be at least 1")
            }
            for topic in stage.inputs + stage.outputs + (stage.rejectTopic.map { [$0] } ?? [])
                + (stage.auditTopic.map { [$0] } ?? [])
            where !topicNames.contains(topic) {
                throw PipelineFileError(
                    code: .undeclaredTopic,
                    message: "stage '\(stage.name)' references topic '\(topic)', which is not declared")
            }
            try stage.retry.validate(stage: stage.name)
        }
        try validateRetryTopics()
    }

    /// A retry topic carries one stage's due deliveries and nothing else: another group reading
    /// it, or a stage writing to it, would see them or mix its records in (D67).
    private func validateRetryTopics() throws(PipelineFileError) {
        var named: [String: String] = [:]
        for stage in stages {
            guard let retryTopic = stage.retryTopic else { continue }
            if let other = named.updateValue(stage.name, forKey: retryTopic) {
                throw PipelineFileError(
                    code: .invalidRetryTopic,
                    message: "stages '\(other)' and '\(stage.name)' both name '\(retryTopic)' as their retryTopic")
            }
            for var other in stages {
                // Retry topics are checked against each other above; this is about everything else.
                other.retryTopic = nil
                guard !topicNames(of: other).contains(retryTopic) else {
                    throw PipelineFileError(
                        code: .invalidRetryTopic,
                        message:
                            "stage '\(stage.name)': retryTopic '\(retryTopic)' is a topic stage '\(other.name)' reads or writes; it must be the stage's own"
                    )
                }
            }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case topics, stages
    }

    /// Our own error (e.g. a bad duration) thrown while decoding; Yams wraps it in a
    /// `DecodingError`, which would otherwise hide the specific code.
    private static func specificError(in error: any Error) -> PipelineFileError? {
        if let error = error as? PipelineFileError { return error }
        guard let decoding = error as? DecodingError else { return nil }
        let context: DecodingError.Context? =
            switch decoding {
            case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
                .valueNotFound(_, let context):
                context
            @unknown default: nil
            }
        return context?.underlyingError.flatMap(specificError(in:))
    }
}
