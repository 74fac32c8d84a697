public import AppStoreModels
public import Foundation

/// Which instant certificate validity is checked at.
public enum ValidationTime: Sendable, Hashable {
    /// The payload's own signing date: data whose leaf has since expired still verifies, as
    /// Apple's library does with online checks off. Required for replays and old vectors.
    case signedDate
    /// The current time: what live traffic should use together with online checks.
    case now
}

/// What a chain gets when online checks are on and an OCSP responder cannot be reached.
public enum OCSPUnreachable: Sendable, Hashable {
    /// Retryable: the purchase waits (the stage's backoff) until the responder answers again.
    /// Strict: nothing is trusted without a fresh "good".
    case retry
    /// Trusted on the offline checks alone (RFC 5280 path and Apple's OIDs, at the current
    /// time), like a browser's soft-fail: an outage of Apple's responder delays nothing, and a
    /// revocation is missed only while the responder is down.
    case acceptOfflineChain
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
        /// What happens when the responder cannot be reached (online checks only).
        public var whenOCSPUnreachable: OCSPUnreachable
        /// Told (with the failed query) each time a chain was accepted offline because its
        /// responder could not be reached, so the stage can log and count it.
        public var onOfflineFallback: (@Sendable (String) -> Void)?

        public init(
            rootCertificates: [Data] = [AppleRoots.rootCAG3],
            bundleId: String,
            appAppleId: Int64? = nil,
            environment: AppStoreEnvironment,
            validationTime: ValidationTime = .signedDate,
            onlineChecks: Bool = false,
            allowUnsignedTestEnvironments: Bool = false,
            ocspTransport: (any OCSPTransport)? = nil,
            whenOCSPUnreachable: OCSPUnreachable = .retry,
            onOfflineFallback: (@Sendable (String) -> Void)? = nil
        ) {
            self.rootCertificates = rootCertificates
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.environment = environment
            self.validationTime = validationTime
            self.onlineChecks = onlineChecks
            self.allowUnsignedTestEnvironments = allowUnsignedTestEnvironments
            self.ocspTransport = ocspTransport
            self.whenOCSPUnreachable = whenOCSPUnreachable
            self.onOfflineFallback = onOfflineFallback
        }
    }
}
