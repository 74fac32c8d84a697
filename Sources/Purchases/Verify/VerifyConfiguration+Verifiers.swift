public import AppStore
public import AppStoreModels
public import Logging

extension VerifyConfiguration {
    /// One ``SignedDataVerifier`` per accepted environment (a verifier is bound to one
    /// environment, so sandbox data can never pass a production check). Verify and the support
    /// tools both check signed data with these. `onOfflineAccept` hears of every chain accepted
    /// on its offline checks because the OCSP responder could not be asked (verify counts them).
    public func signedDataVerifiers(
        logger: Logger, onOfflineAccept: @escaping @Sendable () -> Void = {}
    ) throws(ConfigurationError) -> [AppStoreEnvironment: SignedDataVerifier] {
        var verifiers: [AppStoreEnvironment: SignedDataVerifier] = [:]
        let ocsp: (any OCSPTransport)? = onlineChecks ? HTTPOCSPTransport(timeout: ocspTimeout) : nil
        for environment in environmentPolicy.acceptedEnvironments {
            verifiers[environment] = try SignedDataVerifier(
                .init(
                    rootCertificates: rootCertificates,
                    bundleId: bundleId,
                    appAppleId: appAppleId,
                    environment: environment,
                    validationTime: validationTime,
                    onlineChecks: onlineChecks,
                    allowUnsignedTestEnvironments: environment.isUnsignedTestEnvironment,
                    ocspTransport: ocsp,
                    whenOCSPUnreachable: whenOCSPUnreachable,
                    onOfflineFallback: { failure in
                        onOfflineAccept()
                        logger.warning(
                            "OCSP responder unreachable; chain accepted on its offline checks",
                            metadata: ["error": "\(failure)"])
                    }
                ))
        }
        return verifiers
    }
}
