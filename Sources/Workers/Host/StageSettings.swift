public import AppStore
public import Foundation
public import Purchases

/// What the stages read from the environment besides ``WorkerSettings`` (Kafka, Redis, ops,
/// pipeline file). Every key is optional unless marked; secrets come from files or the
/// environment and are never logged.
///
/// Intake:
/// - `IAP_MAX_EVENT_BYTES`: events larger than this are `malformed_event` (default 1 MiB)
///
/// Verify:
/// - `IAP_BUNDLE_ID` (**required** by verify): the app's bundle id
/// - `IAP_APP_APPLE_ID`: the app's Apple id (required to verify production notifications)
/// - `IAP_APPLE_ROOT_CERTIFICATES`: comma-separated DER/PEM roots (default Apple Root CA - G3)
/// - `IAP_ENVIRONMENT`: `Production` (default) or `Sandbox`, the deployment's environment
/// - `IAP_ACCEPT_SANDBOX`: accept Sandbox purchases in production (default `true`: App Review
///   buys with sandbox accounts); `false` rejects them with `sandbox_not_allowed`
/// - `IAP_ACCEPT_XCODE`: accept Xcode/LocalTesting data (default `false`: `xcode_not_allowed`)
/// - `IAP_APPLE_KEY_ID`, `IAP_APPLE_ISSUER_ID`, `IAP_APPLE_PRIVATE_KEY_PATH` (**required** by
///   verify): the In-App Purchase API key (.p8) for the App Store Server API
/// - `IAP_APPLE_API_URL`, `IAP_APPLE_SANDBOX_API_URL`: Server API base URLs (default Apple's)
/// - `IAP_RECEIPT_VALIDATION`: `serverAPI` (default) or `verifyReceipt` for app receipts
/// - `IAP_VERIFY_RECEIPT_URL`, `IAP_VERIFY_RECEIPT_SANDBOX_URL`, `IAP_VERIFY_RECEIPT_SHARED_SECRET`
/// - `IAP_APPLE_RATE_LIMIT`: Apple calls per second shared by all verify replicas (default 40,
///   under Apple's 50/s for Get Transaction Info; sandbox gets 10 % of it); 0 turns it off
/// - `IAP_APPLE_TIMEOUT_SECONDS`: per Apple request (default 10)
///
/// Match:
/// - `IAP_TOKEN_SCHEME`: `numericPaddedF` or `md5Halves` when appAccountToken carries a user
///   token rather than an order token (docs/events.md); unset by default
/// - the unmatched window is the pipeline file's `windows.unmatched` of the match stage
///
/// Webhook (`iap-grant --webhook`):
/// - `IAP_WEBHOOK_URL`, `IAP_WEBHOOK_SECRET` (**required** by the webhook stage): where every
///   entitlement change is POSTed and the HMAC key of its `X-IAP-Signature`
/// - `IAP_WEBHOOK_TIMEOUT_SECONDS`: per delivery (default 10)
public struct StageSettings: Sendable {
    public var maximumEventBytes = 1 << 20
    public var bundleId: String?
    public var appAppleId: Int64?
    public var rootCertificatePaths: [String] = []
    public var environmentPolicy = EnvironmentPolicy()
    public var appleKeyId: String?
    public var appleIssuerId: String?
    public var applePrivateKeyPath: String?
    public var appleAPIURL = AppStoreServerAPIConfiguration.defaultProductionBaseURL
    public var appleSandboxAPIURL = AppStoreServerAPIConfiguration.defaultSandboxBaseURL
    public var receiptValidation = VerifyConfiguration.ReceiptValidation.serverAPI
    public var verifyReceiptURL = VerifyReceiptClient.Configuration.defaultProductionURL
    public var verifyReceiptSandboxURL = VerifyReceiptClient.Configuration.defaultSandboxURL
    public var verifyReceiptSharedSecret: String?
    public var appleRateLimit = 40
    public var appleTimeout: Duration = .seconds(10)
    public var tokenScheme: AppAccountTokenScheme?
    public var webhookURL: String?
    public var webhookSecret: String?
    public var webhookTimeout: Duration = .seconds(10)

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(StageSettingsError) {
        let reader = Reader(environment: environment)
        if let value = try reader.int("IAP_MAX_EVENT_BYTES") { maximumEventBytes = value }
        bundleId = reader.string("IAP_BUNDLE_ID")
        appAppleId = try reader.int("IAP_APP_APPLE_ID").map(Int64.init)
        rootCertificatePaths = reader.list("IAP_APPLE_ROOT_CERTIFICATES")
        if let value = reader.string("IAP_ENVIRONMENT") {
            switch value {
            case "Production": environmentPolicy.deployment = .production
            case "Sandbox": environmentPolicy.deployment = .sandbox
            default: throw StageSettingsError("IAP_ENVIRONMENT must be Production or Sandbox, not '\(value)'")
            }
        }
        if let value = try reader.bool("IAP_ACCEPT_SANDBOX") { environmentPolicy.acceptSandboxInProduction = value }
        if let value = try reader.bool("IAP_ACCEPT_XCODE") { environmentPolicy.acceptXcode = value }
        appleKeyId = reader.string("IAP_APPLE_KEY_ID")
        appleIssuerId = reader.string("IAP_APPLE_ISSUER_ID")
        applePrivateKeyPath = reader.string("IAP_APPLE_PRIVATE_KEY_PATH")
        if let value = reader.string("IAP_APPLE_API_URL") { appleAPIURL = value }
        if let value = reader.string("IAP_APPLE_SANDBOX_API_URL") { appleSandboxAPIURL = value }
        if let value = reader.string("IAP_RECEIPT_VALIDATION") {
            switch value {
            case "serverAPI": receiptValidation = .serverAPI
            case "verifyReceipt": receiptValidation = .verifyReceipt
            default: throw StageSettingsError("IAP_RECEIPT_VALIDATION must be serverAPI or verifyReceipt, not '\(value)'")
            }
        }
        if let value = reader.string("IAP_VERIFY_RECEIPT_URL") { verifyReceiptURL = value }
        if let value = reader.string("IAP_VERIFY_RECEIPT_SANDBOX_URL") { verifyReceiptSandboxURL = value }
        verifyReceiptSharedSecret = reader.string("IAP_VERIFY_RECEIPT_SHARED_SECRET")
        if let value = try reader.int("IAP_APPLE_RATE_LIMIT") { appleRateLimit = value }
        if let value = try reader.int("IAP_APPLE_TIMEOUT_SECONDS") { appleTimeout = .seconds(value) }
        webhookURL = reader.string("IAP_WEBHOOK_URL")
        webhookSecret = reader.string("IAP_WEBHOOK_SECRET")
        if let value = try reader.int("IAP_WEBHOOK_TIMEOUT_SECONDS") { webhookTimeout = .seconds(value) }
        if let value = reader.string("IAP_TOKEN_SCHEME") {
            guard let scheme = AppAccountTokenScheme(rawValue: value) else {
                throw StageSettingsError("IAP_TOKEN_SCHEME must be one of \(AppAccountTokenScheme.allCases.map(\.rawValue)), not '\(value)'")
            }
            tokenScheme = scheme
        }
    }

    /// Reads typed values, naming the key in every error.
    private struct Reader {
        var environment: [String: String]

        func string(_ key: String) -> String? {
            environment[key].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }

        func list(_ key: String) -> [String] {
            (string(key) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        func int(_ key: String) throws(StageSettingsError) -> Int? {
            guard let text = string(key) else { return nil }
            guard let value = Int(text) else { throw StageSettingsError("\(key) must be an integer, not '\(text)'") }
            return value
        }

        func bool(_ key: String) throws(StageSettingsError) -> Bool? {
            guard let text = string(key) else { return nil }
            switch text.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: throw StageSettingsError("\(key) must be true or false, not '\(text)'")
            }
        }
    }
}

/// A stage setting is missing or unusable; the worker refuses to start.
public struct StageSettingsError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
