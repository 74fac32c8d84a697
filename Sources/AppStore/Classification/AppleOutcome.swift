public import Basics

/// What the pipeline does next with an Apple answer. Retry-versus-reject is decided here, by
/// type, so no caller ever has to interpret a message or a status code.
public enum AppleOutcome: Sendable, Hashable {
    /// Apple answered with usable data.
    case ok
    /// Transient: try the same call again no earlier than `after` (a floor; the pipeline's own
    /// backoff may wait longer, never shorter).
    case retry(after: Duration, reason: RetryReason)
    /// The data lives in the other environment: repeat the call there, once.
    case switchEnvironment(to: AppStoreEnvironment)
    /// Final: the same input will always fail; dead-letter or reject with the reason code.
    case terminal(TerminalReason)
}

/// Why a call should be retried. Equal by code.
public struct RetryReason: Hashable, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// HTTP 5xx / 5000000 / 5000001.
        public static let serverError = Code(rawValue: "server_error")
        /// HTTP 429 / 4290000.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// An error Apple documents as "try again" (4040002/4/6, verifyReceipt 21002/21005/21009,
        /// 21100–21199 with the retry flag).
        public static let appleRetryable = Code(rawValue: "apple_retryable")
        /// Connection refused/reset, DNS, TLS.
        public static let transport = Code(rawValue: "transport")
        public static let timeout = Code(rawValue: "timeout")
        /// A success status with a body that is not the expected JSON (HTML during outages).
        public static let invalidResponseBody = Code(rawValue: "invalid_response_body")
        /// HTTP 401: wrong key, key type, kid/iss/bid, clock, or no production release yet.
        public static let authentication = Code(rawValue: "authentication")
        /// verifyReceipt 21004: the shared secret does not match.
        public static let sharedSecret = Code(rawValue: "shared_secret")
        /// OCSP could not be asked during online verification.
        public static let revocationCheckUnavailable = Code(rawValue: "revocation_check_unavailable")
        /// Apple refused the request itself (bad parameters, forbidden, an unknown 4xx code):
        /// our client or configuration is wrong, not the purchase, so the purchase waits (and
        /// ends in the dead-letter topic, replayable after the fix) instead of being rejected.
        public static let requestRejected = Code(rawValue: "request_rejected")
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// An operator must fix configuration: the pipeline keeps retrying slowly and raises an
    /// alert metric, and never drops the purchase.
    public var isConfigurationError: Bool {
        self.code == .authentication || self.code == .sharedSecret || self.code == .requestRejected
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
    public var description: String { self.detail.isEmpty ? self.code.rawValue : "\(self.code.rawValue): \(self.detail)" }
}

/// Why a call failed for good, as one of the pipeline's reason codes. Equal by code.
public struct TerminalReason: Hashable, Sendable, CustomStringConvertible {
    public var code: PipelineReasonCode
    public var detail: String
    /// Apple's `errorCode` (Server API) or `status` (verifyReceipt), when there was one.
    public var appleCode: Int64?

    public init(_ code: PipelineReasonCode, _ detail: String = "", appleCode: Int64? = nil) {
        self.code = code
        self.detail = detail
        self.appleCode = appleCode
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
    public var description: String { self.detail.isEmpty ? self.code.rawValue : "\(self.code.rawValue): \(self.detail)" }
}

/// The pipeline's rejection reason codes (a contract shared with `iap.rejected` consumers).
public struct PipelineReasonCode: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let malformedEvent = Self(rawValue: "malformed_event")
    public static let unsupportedSchema = Self(rawValue: "unsupported_schema")
    public static let invalidSignature = Self(rawValue: "invalid_signature")
    public static let invalidCertificate = Self(rawValue: "invalid_certificate")
    public static let wrongBundle = Self(rawValue: "wrong_bundle")
    public static let wrongEnvironment = Self(rawValue: "wrong_environment")
    public static let receiptInvalid = Self(rawValue: "receipt_invalid")
    public static let transactionNotFound = Self(rawValue: "transaction_not_found")
    public static let ownershipConflict = Self(rawValue: "ownership_conflict")
    public static let sandboxNotAllowed = Self(rawValue: "sandbox_not_allowed")
    public static let xcodeNotAllowed = Self(rawValue: "xcode_not_allowed")
}
