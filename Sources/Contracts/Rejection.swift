/// Why a record is refused for good: a contract ``ReasonCode`` plus a specific, human detail.
/// Thrown by the codec and the purchase rules, and by a stage's `prepare`; the runtime writes
/// it to the reject topic.
///
/// Equal by reason only (like `VerificationError`); the detail is diagnostic.
public struct Rejection: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: ReasonCode
    public var detail: String

    public init(_ reason: ReasonCode, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.reason == rhs.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.reason) }
    public var description: String { "\(self.reason.rawValue): \(self.detail)" }

    /// `malformed_event` with `detail`.
    public static func malformed(_ detail: String) -> Self { Self(.malformedEvent, detail) }
}
