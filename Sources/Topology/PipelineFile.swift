import Foundation
import Yams

/// The topology file (`pipelines/iap.yaml`): the Kafka topics and the stages that connect them.
///
/// Dead-letter topics are derived, not declared: every input topic `t` of a stage gets
/// `t.dlq` (see ``dlqTopic(for:)``) with the same partitions and replication and the
/// `delete` policy. Declaring `t.dlq` explicitly overrides the derived settings.
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

    /// Every topic a stage reads or writes: inputs, outputs, reject topic, the inputs'
    /// dead-letter topics and the stage's delivery journal, in that order without duplicates.
    public func topics(for stageName: String) throws(PipelineFileError) -> [TopicSpec] {
        let stage = try stage(named: stageName)
        let names =
            stage.inputs + stage.outputs + (stage.rejectTopic.map { [$0] } ?? [])
            + (stage.auditTopic.map { [$0] } ?? [])
            + stage.inputs.map(dlqTopic(for:)) + [
                stage.journalTopic
            ]
        let all = allTopics
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }.compactMap { name in all.first { $0.name == name } }
    }

    /// The dead-letter topic for messages from `input` that exhausted their retries.
    public func dlqTopic(for input: String) -> String { input + ".dlq" }

    /// Declared topics plus the derived ones, what `iap topics create` creates: a dead-letter
    /// topic per input, and per stage a compacted delivery journal (``StageSpec/journalTopic``)
    /// with as many partitions as the stage's widest input and its replication.
    public var allTopics: [TopicSpec] {
        var result = topics
        var names = Set(topics.map(\.name))
        for input in stages.flatMap(\.inputs) {
            let dlq = dlqTopic(for: input)
            guard !names.contains(dlq), let source = topics.first(where: { $0.name == input }) else { continue }
            names.insert(dlq)
            result.append(
                TopicSpec(name: dlq, partitions: source.partitions, replicationFactor: source.replicationFactor))
        }
        for stage in stages where !names.contains(stage.journalTopic) {
            let inputs = topics.filter { stage.inputs.contains($0.name) }
            guard let widest = inputs.max(by: { $0.partitions < $1.partitions }) else { continue }
            names.insert(stage.journalTopic)
            result.append(
                TopicSpec(
                    name: stage.journalTopic, partitions: widest.partitions,
                    replicationFactor: widest.replicationFactor, cleanupPolicy: .compact))
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
