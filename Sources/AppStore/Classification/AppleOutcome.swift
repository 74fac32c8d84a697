public import AppStoreModels
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
    /// Final: the same input will always fail (the pipeline rejects it).
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
    public var description: String {
        self.detail.isEmpty ? self.code.rawValue : "\(self.code.rawValue): \(self.detail)"
    }
}

/// Why a call failed for good, in Apple's terms. Equal by code. (The pipeline maps these onto
/// its contract reason codes; this module does not know them.)
public struct TerminalReason: Hashable, Sendable, CustomStringConvertible {
    /// What made the call final. A closed set on purpose: whoever maps it (the purchase rules)
    /// must decide about every new one.
    public enum Code: String, Hashable, Sendable, CustomStringConvertible {
        /// Our own request could not be encoded (never reached Apple).
        case requestNotEncodable = "request_not_encodable"
        /// The JWS signature does not verify.
        case invalidSignature = "invalid_signature"
        /// The certificate chain, its OIDs or its revocation status are wrong.
        case invalidCertificate = "invalid_certificate"
        /// Signed or looked up for another bundle id.
        case wrongBundle = "wrong_bundle"
        /// Signed for, or only found in, the other environment.
        case wrongEnvironment = "wrong_environment"
        /// verifyReceipt refused the receipt for good.
        case receiptInvalid = "receipt_invalid"
        /// Apple does not know the transaction (or the account behind a receipt).
        case transactionNotFound = "transaction_not_found"
        /// A sandbox receipt where only production is accepted.
        case sandboxNotAllowed = "sandbox_not_allowed"

        public var description: String { self.rawValue }
    }

    public var code: Code
    public var detail: String
    /// Apple's `errorCode` (Server API) or `status` (verifyReceipt), when there was one.
    public var appleCode: Int64?

    public init(_ code: Code, _ detail: String = "", appleCode: Int64? = nil) {
        self.code = code
        self.detail = detail
        self.appleCode = appleCode
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
    public var description: String {
        self.detail.isEmpty ? self.code.rawValue : "\(self.code.rawValue): \(self.detail)"
    }
}
