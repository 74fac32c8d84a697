public import Basics

/// An error from the Redis adapter.
///
/// Modelled on swift-certificates' `CertificateError`: the ``Code`` is a struct of static
/// values rather than an enum so new codes can be added without breaking callers' `switch`
/// statements, and two errors compare equal when their codes match, which keeps
/// `#expect(throws: RedisError.Code...)`-style checks simple while the message keeps detail.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, independent of the human-readable detail.
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The configuration (usually the URL) is malformed; retrying will not help.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// A new connection could not be established (refused, timed out, SELECT failed).
        public static let connectionFailed = Code(rawValue: "connectionFailed")
        /// The server refused the credentials (`AUTH` answered `WRONGPASS` or another error):
        /// a wrong password or ACL user. Retrying does not help until the configuration changes.
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// `rediss://`: the server's certificate was not accepted (not signed by a trusted CA,
        /// expired, or not issued for the host name). The message has OpenSSL's reason.
        public static let tlsVerificationFailed = Code(rawValue: "tlsVerificationFailed")
        /// `rediss://`: the TLS handshake failed for another reason (no common protocol
        /// version, the server wanted a client certificate, not a TLS port).
        public static let tlsHandshakeFailed = Code(rawValue: "tlsHandshakeFailed")
        /// The connection broke while a command was in flight. The command may or may not
        /// have been executed by the server; the connection is discarded and the next call
        /// reconnects.
        public static let connectionLost = Code(rawValue: "connectionLost")
        /// The server answered with an error reply (`-ERR ...`, `-WRONGTYPE ...`, script errors).
        public static let server = Code(rawValue: "server")
        /// The server answered with a reply of a shape the caller did not expect.
        public static let unexpectedReply = Code(rawValue: "unexpectedReply")
        /// The client was shut down.
        public static let shutdown = Code(rawValue: "shutdown")
    }

    /// The kind of failure; errors are equal when their codes are.
    public let code: Code
    /// Detail for logs: the server's error text, hiredis' `errstr`, or the offending input.
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: RedisError, rhs: RedisError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "RedisError.\(code): \(message)" }
}
