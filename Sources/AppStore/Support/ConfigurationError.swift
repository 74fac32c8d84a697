public import Basics

/// A component was set up with values it cannot work with. Thrown at construction time so a
/// misconfigured worker fails at start rather than refusing every purchase later.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: OpenEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let invalidRootCertificate = Code(rawValue: "INVALID_ROOT_CERTIFICATE")
        /// Production verification of notifications and app transactions needs the app's Apple id.
        public static let missingAppAppleId = Code(rawValue: "MISSING_APP_APPLE_ID")
        /// Xcode/LocalTesting data is unsigned; it is accepted only when explicitly enabled.
        public static let unsignedEnvironmentNotEnabled = Code(rawValue: "UNSIGNED_ENVIRONMENT_NOT_ENABLED")
        public static let invalidSigningKey = Code(rawValue: "INVALID_SIGNING_KEY")
        public static let invalidEnvironment = Code(rawValue: "INVALID_ENVIRONMENT")
        /// A StoreKit 2 offer JWS names the key's issuer, which was not given.
        public static let missingIssuerId = Code(rawValue: "MISSING_ISSUER_ID")
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
