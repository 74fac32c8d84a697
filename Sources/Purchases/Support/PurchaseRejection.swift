public import AppStore

/// The contract reason codes of `iap.rejected` (DESIGN.md): `malformed_event`,
/// `unsupported_schema`, `invalid_signature`, `invalid_certificate`, `wrong_bundle`,
/// `wrong_environment`, `receipt_invalid`, `transaction_not_found`, `ownership_conflict`,
/// `sandbox_not_allowed`, `xcode_not_allowed`.
///
/// The `AppStore` module already defines exactly this list for its error classification, so the
/// purchase rules use the same type under a domain name instead of a second copy that could drift.
public typealias PurchaseRejectReason = PipelineReasonCode

/// Why an event is refused for good: a contract reason code plus a specific, human detail.
///
/// Equal by reason only (like `VerificationError`); the detail is diagnostic.
public struct PurchaseRejection: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: PurchaseRejectReason
    public var detail: String

    public init(_ reason: PurchaseRejectReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.reason == rhs.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.reason) }
    public var description: String { "\(self.reason.rawValue): \(self.detail)" }

    static func malformed(_ detail: String) -> Self { Self(.malformedEvent, detail) }
}
