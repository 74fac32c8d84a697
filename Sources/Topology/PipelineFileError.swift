public import Basics

/// Why a pipeline file was refused. Equal by code, so tests can match on the kind while the
/// message names the offending stage, topic or value for operators.
public struct PipelineFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file could not be read or is not valid YAML for the model.
        public static let unreadable = Code(rawValue: "unreadable")
        /// A stage was asked for by name and does not exist.
        public static let unknownStage = Code(rawValue: "unknownStage")
        /// A stage references a topic that the `topics` list does not declare.
        public static let undeclaredTopic = Code(rawValue: "undeclaredTopic")
        /// Two topics or two stages share a name.
        public static let duplicateName = Code(rawValue: "duplicateName")
        /// A duration is not `<number><ms|s|m|h|d>`.
        public static let invalidDuration = Code(rawValue: "invalidDuration")
        /// A number is out of range (partitions, backoff multiplier, jitter, ...).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// A stage that reads or writes its topics by role lacks one (match's `unmatched` output).
        public static let missingRole = Code(rawValue: "missingRole")
        /// A stage names a window it does not have (a typo would leave the default in force).
        public static let unknownWindow = Code(rawValue: "unknownWindow")
        /// Two values that must outlast one another do not.
        public static let contradiction = Code(rawValue: "contradiction")
        /// A stage's `retryTopic` is another stage's too, or a topic some stage reads or writes, or
        /// the stage keeps one key's state and must see its retries in its key's partition.
        public static let invalidRetryTopic = Code(rawValue: "invalidRetryTopic")
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "PipelineFileError.\(code): \(message)" }
}
