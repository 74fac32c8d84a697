public import AppStoreModels

/// Whether signed data passed verify's checks.
public struct Verification: Encodable, Hashable, Sendable {
    public enum Status: String, Encodable, Sendable {
        /// Signature, chain and identity hold: the pipeline would accept it.
        case verified
        /// The pipeline would refuse it (signature, chain, bundle, environment policy).
        case refused
        /// No answer yet (an OCSP responder could not be reached): verify would retry.
        case undecided
    }

    public var status: Status
    /// Why it was refused or is undecided.
    public var detail: String?

    public static let verified = Verification(status: .verified, detail: nil)
    public static func refused(_ detail: String) -> Verification { Verification(status: .refused, detail: detail) }
    public static func undecided(_ detail: String) -> Verification { Verification(status: .undecided, detail: detail) }
}

/// A signed transaction from Apple and its check; `transaction` is what it claims when refused.
public struct CheckedTransaction: Encodable, Sendable {
    public var verification: Verification
    public var transaction: JWSTransactionDecodedPayload?
}

/// Signed renewal info from Apple and its check.
public struct CheckedRenewalInfo: Encodable, Sendable {
    public var verification: Verification
    public var renewalInfo: JWSRenewalInfoDecodedPayload?
}

/// A signed AppTransaction from Apple and its check.
public struct CheckedAppTransaction: Encodable, Sendable {
    public var verification: Verification
    public var appTransaction: AppTransaction?
}

/// A notification's signed payload and its check.
public struct CheckedNotification: Encodable, Sendable {
    public var verification: Verification
    public var notification: ResponseBodyV2DecodedPayload?
}
