// Temporary stand-in for the pipeline-file branch (merged later).
public struct StageSpec: Sendable { public var consumerGroup: String; public var inputs: [String] }
public struct PipelineFile: Sendable {
    public var stages: [StageSpec]
    public static func load(path: String) throws -> PipelineFile { PipelineFile(stages: []) }
}
