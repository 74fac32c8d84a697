public import Basics

/// A setting is missing, malformed or contradicts another; the process refuses to start and
/// `iap config check` refuses the configuration. The message names the key.
public struct SettingsError: Error, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let missing = Code(rawValue: "missing")
        public static let invalidValue = Code(rawValue: "invalid_value")
        public static let unknownKey = Code(rawValue: "unknown_key")
        public static let contradiction = Code(rawValue: "contradiction")
        public static let unreadableFile = Code(rawValue: "unreadable_file")
    }

    public var code: Code
    /// The key at fault (the first one, for a contradiction).
    public var key: String
    public var message: String

    public init(_ code: Code, key: String, _ message: String) {
        self.code = code
        self.key = key
        self.message = message
    }

    public var description: String { message }
}
