public import AppStoreModels

/// The outcome of verifying signed data. Retry-versus-reject is decided by the case, never by
/// inspecting a message.
public enum VerificationResult<Payload: Sendable>: Sendable {
    /// Signed by Apple (through a configured root) and meant for this app and environment.
    case valid(Payload)
    /// Refused for good: the same input will always be refused.
    case invalid(VerificationError)
    /// Could not be decided now (OCSP responder unreachable); the same input may pass later.
    case retryable(VerificationError)

    public var payload: Payload? {
        if case .valid(let payload) = self { return payload }
        return nil
    }

    /// The refusal, whether final or retryable.
    public var error: VerificationError? {
        switch self {
        case .valid: nil
        case .invalid(let error), .retryable(let error): error
        }
    }

    func map<Other: Sendable>(_ transform: (Payload) -> Other) -> VerificationResult<Other> {
        switch self {
        case .valid(let payload): .valid(transform(payload))
        case .invalid(let error): .invalid(error)
        case .retryable(let error): .retryable(error)
        }
    }
}
