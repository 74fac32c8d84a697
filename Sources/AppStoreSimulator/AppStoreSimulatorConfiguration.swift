import Crypto

/// Everything that shapes a simulator run. Every key has a default suited to tests.
///
/// ## Keys (CLI flag in parentheses)
/// - `host` (`--host`): address to bind; loopback by default so nothing leaves the machine.
/// - `port` (`--port`): 0 picks a free port; read the bound one from ``AppStoreSimulatorServer/baseURL()``.
/// - `stateDirectory` (`--state-dir`): keeps the CA across restarts (workers keep trusting the
///   root); nil generates a new CA on every start. Purchases are kept in memory only.
/// - `rootCertificatePath`: where the root PEM is written; defaults to `<stateDirectory>/root.pem`,
///   else a file in the temporary directory.
/// - `leafValidity`: lifetime of the JWS signing leaf; make it short to test expired chains.
/// - `bundleId` (`--bundle-id`): default for purchases that omit `bundleId`.
/// - `appAppleId`, `bundleVersion`: what notifications carry in `data`.
/// - `notifyURL` (`--notify-url`): where notifications are POSTed; nil keeps them in history only.
/// - `retryTimeScale` (`--retry-time-scale`): multiplies Apple's retry delays (1, 12, 24, 48, 72 h
///   after the previous attempt); 1 is real time, 1/3600 turns hours into seconds.
/// - `retryInSandbox`: Apple delivers sandbox notifications once; true (default) retries them too,
///   because local runs are sandbox and need retries exercised.
/// - `notificationTimeout`: how long one delivery attempt may take.
/// - `faults` (`--fault-rate`, `--fault-kinds`, `--latency-ms`): initial faults; `PUT /sim/v1/faults` changes them.
/// - `faultHangDuration`: how long a `timeout` fault holds the response.
/// - `apiKeys`: public keys whose Server API bearer tokens are accepted; empty accepts any
///   well-formed, unexpired ES256 token with Apple's claims (signature not checked).
/// - `sharedSecret`: verifyReceipt `password` required for receipts with subscriptions; nil accepts any.
/// - `subscriptionPeriod`: default period of an auto-renewable purchase without `expiresInSeconds`.
public struct AppStoreSimulatorConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var stateDirectory: String?
    public var rootCertificatePath: String?
    public var leafValidity: Duration
    public var bundleId: String
    public var appAppleId: Int64
    public var bundleVersion: String
    public var notifyURL: String?
    public var retryTimeScale: Double
    public var retryInSandbox: Bool
    public var notificationTimeout: Duration
    public var faults: FaultConfiguration
    public var faultHangDuration: Duration
    public var apiKeys: [ServerAPIKey]
    public var sharedSecret: String?
    public var subscriptionPeriod: Duration

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        stateDirectory: String? = nil,
        rootCertificatePath: String? = nil,
        leafValidity: Duration = .seconds(2 * 365 * 86_400),
        bundleId: String = "com.example.game",
        appAppleId: Int64 = 1_234_567_890,
        bundleVersion: String = "1",
        notifyURL: String? = nil,
        retryTimeScale: Double = 1,
        retryInSandbox: Bool = true,
        notificationTimeout: Duration = .seconds(10),
        faults: FaultConfiguration = .none,
        faultHangDuration: Duration = .seconds(120),
        apiKeys: [ServerAPIKey] = [],
        sharedSecret: String? = nil,
        subscriptionPeriod: Duration = .seconds(30 * 86_400)
    ) {
        self.host = host
        self.port = port
        self.stateDirectory = stateDirectory
        self.rootCertificatePath = rootCertificatePath
        self.leafValidity = leafValidity
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.bundleVersion = bundleVersion
        self.notifyURL = notifyURL
        self.retryTimeScale = retryTimeScale
        self.retryInSandbox = retryInSandbox
        self.notificationTimeout = notificationTimeout
        self.faults = faults
        self.faultHangDuration = faultHangDuration
        self.apiKeys = apiKeys
        self.sharedSecret = sharedSecret
        self.subscriptionPeriod = subscriptionPeriod
    }

    func validated() throws -> AppStoreSimulatorConfiguration {
        guard (0...65_535).contains(port) else {
            throw SimulatorError(.invalidConfiguration, "port must be within 0...65535")
        }
        guard retryTimeScale >= 0 else {
            throw SimulatorError(.invalidConfiguration, "retryTimeScale must not be negative")
        }
        guard leafValidity > .zero else { throw SimulatorError(.invalidConfiguration, "leafValidity must be positive") }
        guard subscriptionPeriod > .zero else {
            throw SimulatorError(.invalidConfiguration, "subscriptionPeriod must be positive")
        }
        do {
            _ = try faults.validated()
        } catch let error as SimulatorError {
            throw SimulatorError(.invalidConfiguration, error.reason)
        }
        return self
    }
}
