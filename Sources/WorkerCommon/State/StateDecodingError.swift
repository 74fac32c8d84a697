/// A value stored under a state key could not be read back: JSON that does not decode as
/// the expected type (written by an incompatible version, or by hand), or a malformed field.
///
/// Thrown instead of crashing or treating the entry as absent: absent would silently re-grant
/// or re-bind a purchase. The runtime retries the message and, past its budget, dead-letters
/// it; an operator repairs or deletes ``key``.
public struct StateDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Redis key holding the value.
    public let key: String
    /// What the value should have been, e.g. `EntitlementState`.
    public let expected: String
    /// The decoder's complaint.
    public let detail: String

    public init(key: String, expected: String, detail: String) {
        self.key = key
        self.expected = expected
        self.detail = detail
    }

    public var description: String { "\(key) does not hold a valid \(expected): \(detail)" }
}
