public import AppStore
import Foundation
public import Purchases
public import Settings

extension StageSettings {
    /// How verify checks signed data: the trusted roots, bundle, app id, environment policy and
    /// online checks of these settings. Verify and the support tools build it here, so both
    /// trust exactly the same things.
    public func verifyConfiguration() throws(ConfigurationError) -> VerifyConfiguration {
        let roots = try rootCertificatePaths.map { path throws(ConfigurationError) in
            try AppleRoots.load(path: path)
        }
        return VerifyConfiguration(
            bundleId: bundleId, appAppleId: appAppleId,
            rootCertificates: roots.isEmpty ? [AppleRoots.rootCAG3] : roots,
            onlineChecks: ocsp, ocspTimeout: ocspTimeout, whenOCSPUnreachable: ocspUnreachable,
            environmentPolicy: environmentPolicy, receiptValidation: receiptValidation,
            appleWaitInPlace: appleWaitInPlace
        )
    }

    /// The Server API configuration of the Apple keys for `bundleId`, the key file read now:
    /// verify, reconcile and grant (answering consumption requests) build their clients from the
    /// same keys the same way.
    public func serverAPIConfiguration(bundleId: String) throws(SettingsError) -> AppStoreServerAPIConfiguration {
        guard let key = appleAPI else {
            preconditionFailure("StageSettings requires the Apple API key where a stage calls Apple")
        }
        let privateKey: String
        do {
            privateKey = try String(contentsOfFile: key.privateKeyPath, encoding: .utf8)
        } catch {
            throw SettingsError(
                .unreadableFile, key: Self.applePrivateKeyPathKey.name,
                "cannot read IAP_APPLE_PRIVATE_KEY_PATH \(key.privateKeyPath): \(error.localizedDescription)"
            )
        }
        return AppStoreServerAPIConfiguration(
            privateKeyPEM: privateKey, keyId: key.keyId, issuerId: key.issuerId, bundleId: bundleId,
            productionBaseURL: appleAPIURL, sandboxBaseURL: appleSandboxAPIURL, timeout: appleTimeout
        )
    }
}
