public import AppStore
import Foundation
public import Purchases
public import Settings

extension StageSettings {
    /// How verify checks `app`'s signed data: the trusted roots, its bundle, app id and
    /// environment policy, and the online checks of these settings. Verify and the support tools
    /// build it here, so both trust exactly the same things.
    public func verifyConfiguration(for app: AppSettings) throws(ConfigurationError) -> VerifyConfiguration {
        let roots = try rootCertificatePaths.map { path throws(ConfigurationError) in
            try AppleRoots.load(path: path)
        }
        return VerifyConfiguration(
            bundleId: app.bundleId, appAppleId: app.appAppleId,
            rootCertificates: roots.isEmpty ? [AppleRoots.rootCAG3] : roots,
            onlineChecks: ocsp, ocspTimeout: ocspTimeout, whenOCSPUnreachable: ocspUnreachable,
            environmentPolicy: app.environmentPolicy, receiptValidation: receiptValidation,
            appleWaitInPlace: appleWaitInPlace
        )
    }

    /// The Server API configuration of `app`'s Apple key, the key file read now: verify,
    /// reconcile, grant (answering consumption requests), confirm and the support tools build
    /// their clients from the same keys the same way.
    public func serverAPIConfiguration(for app: AppSettings) throws(SettingsError) -> AppStoreServerAPIConfiguration {
        guard let key = app.appleKey else {
            preconditionFailure("StageSettings requires an Apple API key for every app where a stage calls Apple")
        }
        let privateKey: String
        do {
            privateKey = try String(contentsOfFile: key.privateKeyPath, encoding: .utf8)
        } catch {
            throw SettingsError(
                .unreadableFile, key: Self.applePrivateKeyPathKey.name,
                "cannot read the Apple key of \(app.bundleId), \(key.privateKeyPath): \(error.localizedDescription)"
            )
        }
        return AppStoreServerAPIConfiguration(
            privateKeyPEM: privateKey, keyId: key.keyId, issuerId: key.issuerId, bundleId: app.bundleId,
            productionBaseURL: appleAPIURL, sandboxBaseURL: appleSandboxAPIURL, timeout: appleTimeout
        )
    }
}
