public import Basics
package import CRdKafka

/// An error from librdkafka or from this wrapper.
///
/// Modelled on swift-certificates' `CertificateError`: the code is an extensible struct so new
/// codes never break a caller's `switch`, and errors compare equal by code only, which keeps
/// `#expect(throws:)` simple.
public struct KafkaError: Error, Hashable, CustomStringConvertible, Sendable {
    public let code: Code
    /// librdkafka's numeric `rd_kafka_resp_err_t`, when the error came from the library.
    public let librdkafkaCode: Int32?
    public let message: String
    /// Whether librdkafka says the same call may succeed if retried.
    public let isRetriable: Bool
    /// Whether the client instance is unusable (e.g. idempotent producer fenced).
    public let isFatal: Bool

    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A configuration property was rejected by librdkafka.
        public static let configuration = Code(rawValue: "configuration")
        /// Creating the client handle failed.
        public static let clientCreation = Code(rawValue: "clientCreation")
        /// A message could not be enqueued or was not delivered.
        public static let delivery = Code(rawValue: "delivery")
        /// A consumer call (subscribe, assign, store, commit, pause) failed.
        public static let consumer = Code(rawValue: "consumer")
        /// A metadata, offsets or admin query failed or timed out.
        public static let query = Code(rawValue: "query")
        /// The client was already closed.
        public static let closed = Code(rawValue: "closed")
        /// The mock cluster rejected a request.
        public static let mockCluster = Code(rawValue: "mockCluster")
    }

    public init(
        code: Code, message: String, librdkafkaCode: Int32? = nil, isRetriable: Bool = false, isFatal: Bool = false
    ) {
        self.code = code
        self.message = message
        self.librdkafkaCode = librdkafkaCode
        self.isRetriable = isRetriable
        self.isFatal = isFatal
    }

    public var description: String {
        if let librdkafkaCode { return "KafkaError.\(code) (\(librdkafkaCode)): \(message)" }
        return "KafkaError.\(code): \(message)"
    }

    public static func == (lhs: KafkaError, rhs: KafkaError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `package`: the mock cluster (`LocalServices`) reports its C errors the same way.
    package static func from(_ err: rd_kafka_resp_err_t, code: Code, context: String) -> KafkaError {
        KafkaError(
            code: code,
            message: "\(context): \(String(cString: rd_kafka_err2str(err)))",
            librdkafkaCode: err.rawValue
        )
    }

    /// Consumes (destroys) an `rd_kafka_error_t`, as librdkafka requires of every returned error.
    static func consuming(_ error: OpaquePointer, code: Code, context: String) -> KafkaError {
        defer { rd_kafka_error_destroy(error) }
        return KafkaError(
            code: code,
            message: "\(context): \(String(cString: rd_kafka_error_string(error)))",
            librdkafkaCode: rd_kafka_error_code(error).rawValue,
            isRetriable: rd_kafka_error_is_retriable(error) != 0,
            isFatal: rd_kafka_error_is_fatal(error) != 0
        )
    }
}
