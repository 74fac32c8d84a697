public import AppStoreModels
import Foundation

/// Credentials and endpoints of the App Store Server API client.
public struct AppStoreServerAPIConfiguration: Sendable {
    public static let defaultProductionBaseURL = AppleEndpoints.serverAPIProduction
    public static let defaultSandboxBaseURL = AppleEndpoints.serverAPISandbox

    /// The In-App Purchase key (`.p8`, PEM PKCS#8), not an App Store Connect API key.
    public var privateKeyPEM: String
    public var keyId: String
    public var issuerId: String
    public var bundleId: String
    /// Where calls go first; sandbox-only deployments set `.sandbox`.
    public var environment: AppStoreEnvironment
    /// Whether a production 4040010 is retried in sandbox (App Review buys in sandbox).
    public var sandboxFallback: Bool
    public var productionBaseURL: String
    public var sandboxBaseURL: String
    public var timeout: Duration

    public init(
        privateKeyPEM: String,
        keyId: String,
        issuerId: String,
        bundleId: String,
        environment: AppStoreEnvironment = .production,
        sandboxFallback: Bool = true,
        productionBaseURL: String = Self.defaultProductionBaseURL,
        sandboxBaseURL: String = Self.defaultSandboxBaseURL,
        timeout: Duration = .seconds(30)
    ) {
        self.privateKeyPEM = privateKeyPEM
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.environment = environment
        self.sandboxFallback = sandboxFallback
        self.productionBaseURL = productionBaseURL
        self.sandboxBaseURL = sandboxBaseURL
        self.timeout = timeout
    }
}

extension AppStoreServerAPIConfiguration {
    /// This configuration fixed to `environment`, with no fallback: for callers that walk the
    /// environments themselves (verify by its policy, grant answering consumption requests),
    /// one client per environment.
    public func pinned(to environment: AppStoreEnvironment) -> Self {
        var pinned = self
        pinned.environment = environment
        pinned.sandboxFallback = false
        return pinned
    }
}
