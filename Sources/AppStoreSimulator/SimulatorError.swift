public import Basics

/// An error the simulator reports, either to its own caller (configuration, certificate files)
/// or to an HTTP client as a clear 4xx/5xx JSON body instead of a crash (see `ErrorMiddleware`).
///
/// The code is a struct of `static let`s rather than an enum so new codes don't break callers'
/// `switch` statements. Errors compare equal by code only, which keeps `#expect(throws:)` simple.
public struct SimulatorError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The kind of failure.
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The request body or a parameter is malformed (HTTP 400).
        public static let badRequest = Code(rawValue: "badRequest")
        /// The addressed transaction or subscription doesn't exist (HTTP 404).
        public static let notFound = Code(rawValue: "notFound")
        /// The request contradicts the current state, e.g. refunding twice (HTTP 409).
        public static let conflict = Code(rawValue: "conflict")
        /// A configuration value is out of range.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// The CA files in the state directory can't be read or written.
        public static let certificateStore = Code(rawValue: "certificateStore")
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "SimulatorError.\(code): \(reason)" }

    public static func == (lhs: SimulatorError, rhs: SimulatorError) -> Bool { lhs.code == rhs.code }
}
