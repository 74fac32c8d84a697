public import Contracts

/// What intake does with one inbound event.
public enum IntakeDecision: Sendable, Hashable {
    /// Publish `request` to `iap.verify` under `key`; `dedupeKey` identifies exact duplicates
    /// for the runtime's idempotency guard (it equals `request.dedupeKey`).
    case forward(VerifyRequest, key: String, dedupeKey: String)
    /// Write the event to `iap.rejected` with this reason.
    case reject(Rejection)
}
