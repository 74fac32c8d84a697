public import AppStore
public import Basics

/// Why a support command could not answer. `code` is what `--json` prints as `error`.
public struct SupportError: Error, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Apple answered with an error (or not at all); `detail` has Apple's error code.
        public static let appleError = Code(rawValue: "apple_error")
        /// `--republish` of a purchase grant never saw, without `--user-id`.
        public static let userIdRequired = Code(rawValue: "user_id_required")
        /// `--user-id` without a token scheme that can encode it.
        public static let tokenSchemeRequired = Code(rawValue: "token_scheme_required")
        /// The pipeline file names a topic the cluster does not have.
        public static let topicMissing = Code(rawValue: "topic_missing")
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// An Apple call's failure, naming the call.
    public init(call: String, _ error: AppStoreAPIError) {
        self.init(.appleError, "\(call): \(error)")
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
