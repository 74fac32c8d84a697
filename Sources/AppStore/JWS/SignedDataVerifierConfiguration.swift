public import Foundation

/// Which instant certificate validity is checked at.
public enum ValidationTime: Sendable, Hashable {
    /// The payload's own signing date: data whose leaf has since expired still verifies, as
    /// Apple's library does with online checks off. Required for replays and old vectors.
    case signedDate
    /// The current time: what live traffic should use together with online checks.
    case now
}

extension SignedDataVerifier {
    /// What a verifier trusts and which app and environment it accepts.
    ///
    /// One verifier is bound to one environment; run one per environment and choose by the
    /// payload, so sandbox data can never pass a production check.
    public struct Configuration: Sendable {
        /// DER certificates to anchor chains in. Defaults to Apple Root CA - G3.
        public var rootCertificates: [Data]
        public var bundleId: String
        /// Required for production notifications and app transactions.
        public var appAppleId: Int64?
        public var environment: AppStoreEnvironment
        public var validationTime: ValidationTime
        /// Require good OCSP answers for leaf and intermediate. Implies validation at now.
        public var onlineChecks: Bool
        /// Xcode and LocalTesting data carries no Apple signature; a verifier for those
        /// environments is refused unless this is set, so it cannot be configured by accident.
        public var allowUnsignedTestEnvironments: Bool
        /// How OCSP requests reach the responder; nil uses HTTP through the shared client.
        public var ocspTransport: (any OCSPTransport)?

        public init(
            rootCertificates: [Data] = [AppleRoots.rootCAG3],
            bundleId: String,
            appAppleId: Int64? = nil,
            environment: AppStoreEnvironment,
            validationTime: ValidationTime = .signedDate,
            onlineChecks: Bool = false,
            allowUnsignedTestEnvironments: Bool = false,
            ocspTransport: (any OCSPTransport)? = nil
        ) {
            self.rootCertificates = rootCertificates
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.environment = environment
            self.validationTime = validationTime
            self.onlineChecks = onlineChecks
            self.allowUnsignedTestEnvironments = allowUnsignedTestEnvironments
            self.ocspTransport = ocspTransport
        }
    }
}
