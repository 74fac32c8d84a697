public import Basics

/// Why signed data was refused, in the style of swift-certificates' `CertificateError`:
/// a stable, extensible ``Code`` that callers switch on, plus a human reason for logs.
///
/// Two errors are equal when their codes are equal; the reason is diagnostic only.
public struct VerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Not a compact JWS of the expected shape: segments, base64url, JSON, `alg`, `x5c` count, size.
        public static let invalidJWTFormat = Code(rawValue: "INVALID_JWT_FORMAT")
        /// An `x5c` certificate is not valid base64 DER, or the leaf key is not P-256.
        public static let invalidCertificate = Code(rawValue: "INVALID_CERTIFICATE")
        /// The chain does not lead to a configured root at the validation time, lacks Apple's
        /// OIDs, or a certificate was revoked.
        public static let invalidChain = Code(rawValue: "INVALID_CHAIN")
        /// The ES256 signature does not match the leaf key.
        public static let verificationFailure = Code(rawValue: "VERIFICATION_FAILURE")
        /// The payload names another bundle id or app Apple id.
        public static let invalidAppIdentifier = Code(rawValue: "INVALID_APP_IDENTIFIER")
        /// The payload belongs to another environment than the verifier's.
        public static let invalidEnvironment = Code(rawValue: "INVALID_ENVIRONMENT")
        /// Revocation status could not be obtained (OCSP unreachable): try again later.
        public static let retryableVerificationFailure = Code(rawValue: "RETRYABLE_VERIFICATION_FAILURE")
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }

    public var description: String { "\(self.code.rawValue): \(self.reason)" }
}
