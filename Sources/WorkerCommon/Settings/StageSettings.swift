public import AppStore
public import AppStoreModels
import Foundation
public import Purchases
public import Settings
public import Topology

/// What a stage reads besides ``WorkerSettings``: only its own keys, each with one default and
/// one rule, the keys it cannot run without checked here (so `iap config check --stage` and
/// the worker refuse the same things). Secrets come from the environment or files and are never
/// logged.
public struct StageSettings: Sendable {
    // MARK: Intake
    public static let maximumEventBytes = Setting<Int>.integer(
        "IAP_MAX_EVENT_BYTES", "Events larger than this are rejected as `malformed_event`", default: 1 << 20,
        in: 1...Int.max
    )

    // MARK: Verify
    public static let bundleIdKey = Setting<String>.text("IAP_BUNDLE_ID", "The app's bundle id (required by verify)")
    public static let appAppleIdKey = Setting<Int>.integer(
        "IAP_APP_APPLE_ID", "The app's Apple id (required to verify production notifications)", in: 1...Int.max
    )
    public static let rootCertificates = Setting<[String]>.list(
        "IAP_APPLE_ROOT_CERTIFICATES", "DER/PEM root certificates to trust instead of Apple Root CA - G3"
    )
    public static let deployment = Setting<AppStoreEnvironment>.choice(
        "IAP_ENVIRONMENT", "The deployment's environment", default: "Production",
        ["Production": .production, "Sandbox": .sandbox]
    )
    public static let acceptSandbox = Setting<Bool>.flag(
        "IAP_ACCEPT_SANDBOX",
        "Accept Sandbox purchases in production (App Review buys with sandbox accounts); off: `sandbox_not_allowed`",
        default: true
    )
    public static let acceptXcode = Setting<Bool>.flag(
        "IAP_ACCEPT_XCODE", "Accept Xcode/LocalTesting data (off: `xcode_not_allowed`)", default: false)
    public static let appleKeyIdKey = Setting<String>.text(
        "IAP_APPLE_KEY_ID", "In-App Purchase API key id (required by verify)")
    public static let appleIssuerIdKey = Setting<String>.text(
        "IAP_APPLE_ISSUER_ID", "In-App Purchase API issuer id (required by verify)")
    public static let applePrivateKeyPathKey = Setting<String>.text(
        "IAP_APPLE_PRIVATE_KEY_PATH", "The API key's `.p8` file (required by verify)"
    )
    public static let appleAPIURLKey = Setting<String>.text(
        "IAP_APPLE_API_URL", "App Store Server API base URL",
        default: AppStoreServerAPIConfiguration.defaultProductionBaseURL
    )
    public static let appleSandboxAPIURLKey = Setting<String>.text(
        "IAP_APPLE_SANDBOX_API_URL", "Sandbox App Store Server API base URL",
        default: AppStoreServerAPIConfiguration.defaultSandboxBaseURL
    )
    public static let receiptValidationKey = Setting<VerifyConfiguration.ReceiptValidation>.choice(
        "IAP_RECEIPT_VALIDATION", "How app receipts are checked", default: "serverAPI",
        ["serverAPI": .serverAPI, "verifyReceipt": .verifyReceipt]
    )
    public static let verifyReceiptURLKey = Setting<String>.text(
        "IAP_VERIFY_RECEIPT_URL", "verifyReceipt endpoint",
        default: VerifyReceiptClient.Configuration.defaultProductionURL
    )
    public static let verifyReceiptSandboxURLKey = Setting<String>.text(
        "IAP_VERIFY_RECEIPT_SANDBOX_URL", "Sandbox verifyReceipt endpoint",
        default: VerifyReceiptClient.Configuration.defaultSandboxURL
    )
    public static let verifyReceiptSharedSecretKey = Setting<String>.text(
        "IAP_VERIFY_RECEIPT_SHARED_SECRET", "verifyReceipt's app-specific shared secret", secret: true
    )
    public static let appleRateLimitKey = Setting<Int>.integer(
        "IAP_APPLE_RATE_LIMIT",
        "Apple calls per second shared by all verify replicas (sandbox gets 10 %); 0 turns it off", default: 40,
        in: 0...Int.max
    )
    public static let appleWaitInPlaceKey = Setting<Duration>.milliseconds(
        "IAP_APPLE_WAIT_IN_PLACE_MS",
        "The longest wait for a slot of the Apple budget a record waits in the worker; a later slot parks it"
            + " (a runtime wait, not an attempt)", default: 2000)
    public static let appleTimeoutKey = Setting<Duration>.seconds(
        "IAP_APPLE_TIMEOUT_SECONDS", "Per Apple request", default: "10")
    public static let ocspKey = Setting<Bool>.flag(
        "IAP_APPLE_OCSP",
        "Check leaf and intermediate revocation with Apple's OCSP responders (chains validated at now, answers"
            + " trusted 15 min)",
        default: false)
    public static let ocspTimeoutKey = Setting<Duration>.milliseconds(
        "IAP_APPLE_OCSP_TIMEOUT_MS", "Per OCSP query (with IAP_APPLE_OCSP)", default: 5000)
    public static let ocspUnreachableKey = Setting<OCSPUnreachable>.choice(
        "IAP_APPLE_OCSP_UNREACHABLE",
        "When a responder cannot be reached: retry the purchase later, or accept the chain on its offline checks",
        default: "retry", ["retry": .retry, "accept-offline": .acceptOfflineChain]
    )

    // MARK: Match
    public static let tokenSchemeKey = Setting<AppAccountTokenScheme>.choice(
        "IAP_TOKEN_SCHEME", "How appAccountToken carries a user id when it is not an order token (docs/events.md)",
        AppAccountTokenScheme.settingNames
    )

    // MARK: Grant: consumption requests (decision D34)
    public static let consumptionAnswerKey = Setting<Bool>.flag(
        "IAP_CONSUMPTION_ANSWER",
        "Answer CONSUMPTION_REQUEST notifications with Send Consumption Information (grant then needs IAP_BUNDLE_ID"
            + " and the IAP_APPLE_ key settings)",
        default: false)
    public static let consumptionCustomerConsentedKey = Setting<Bool>.choice(
        "IAP_CONSUMPTION_CUSTOMER_CONSENTED",
        "Whether customers consented to sharing consumption data (required with IAP_CONSUMPTION_ANSWER; false"
            + " answers nothing)",
        ["true": true, "false": false])
    public static let consumptionRefundPreferenceKey = Setting<ConsumptionRequest.RefundPreference?>.choice(
        "IAP_CONSUMPTION_REFUND_PREFERENCE", "`refundPreference` sent with each answer (none: left out)",
        default: "none",
        ["none": nil, "DECLINE": .decline, "GRANT_FULL": .grantFull, "GRANT_PRORATED": .grantProrated])
    public static let consumptionSampleContentKey = Setting<Bool>.flag(
        "IAP_CONSUMPTION_SAMPLE_CONTENT_PROVIDED",
        "`sampleContentProvided`: the app offered a sample, trial or description before the purchase",
        default: false)
    public static let consumptionConsumablesConsumedKey = Setting<Bool>.flag(
        "IAP_CONSUMPTION_CONSUMABLES_CONSUMED",
        "A delivered consumable counts as fully consumed (off: `consumptionPercentage` left out)", default: true)

    /// The keys each stage reads, as the settings table lists them.
    public static let sections: [SettingsSection] = [
        SettingsSection("Intake", readBy: "iap-intake", [maximumEventBytes.descriptor]),
        SettingsSection(
            "Verify", readBy: "iap-verify",
            [
                bundleIdKey.descriptor, appAppleIdKey.descriptor, rootCertificates.descriptor, deployment.descriptor,
                acceptSandbox.descriptor,
                acceptXcode.descriptor, appleKeyIdKey.descriptor, appleIssuerIdKey.descriptor,
                applePrivateKeyPathKey.descriptor,
                appleAPIURLKey.descriptor, appleSandboxAPIURLKey.descriptor, receiptValidationKey.descriptor,
                verifyReceiptURLKey.descriptor,
                verifyReceiptSandboxURLKey.descriptor, verifyReceiptSharedSecretKey.descriptor,
                appleRateLimitKey.descriptor, appleWaitInPlaceKey.descriptor, appleTimeoutKey.descriptor,
                ocspKey.descriptor,
                ocspTimeoutKey.descriptor, ocspUnreachableKey.descriptor,
            ]),
        SettingsSection("Match", readBy: "iap-match", [tokenSchemeKey.descriptor]),
        SettingsSection(
            "Consumption", readBy: "iap-grant",
            [
                consumptionAnswerKey.descriptor, consumptionCustomerConsentedKey.descriptor,
                consumptionRefundPreferenceKey.descriptor, consumptionSampleContentKey.descriptor,
                consumptionConsumablesConsumedKey.descriptor,
            ]),
    ]

    /// What verify needs to call Apple.
    public struct AppleAPI: Sendable {
        public var keyId: String
        public var issuerId: String
        public var privateKeyPath: String
    }

    public var maximumEventBytes = 1 << 20
    public var bundleId = ""
    public var appAppleId: Int64?
    public var rootCertificatePaths: [String] = []
    public var environmentPolicy = EnvironmentPolicy()
    public var appleAPI: AppleAPI?
    public var appleAPIURL = AppStoreServerAPIConfiguration.defaultProductionBaseURL
    public var appleSandboxAPIURL = AppStoreServerAPIConfiguration.defaultSandboxBaseURL
    public var receiptValidation = VerifyConfiguration.ReceiptValidation.serverAPI
    public var verifyReceiptURL = VerifyReceiptClient.Configuration.defaultProductionURL
    public var verifyReceiptSandboxURL = VerifyReceiptClient.Configuration.defaultSandboxURL
    public var verifyReceiptSharedSecret: String?
    public var appleRateLimit = 40
    public var appleWaitInPlace: Duration = .seconds(2)
    public var appleTimeout: Duration = .seconds(10)
    public var ocsp = false
    public var ocspTimeout: Duration = .seconds(5)
    public var ocspUnreachable = OCSPUnreachable.retry
    public var tokenScheme: AppAccountTokenScheme?
    /// Set when grant answers consumption requests.
    public var consumption: ConsumptionConfiguration?

    /// Reads `stage`'s keys; a key the stage cannot run without is an error naming it.
    public init(stage: StageName, reader: SettingsReader) throws(SettingsError) {
        let user = stage.executable
        switch stage {
        case .intake:
            maximumEventBytes = try reader.value(Self.maximumEventBytes)
        case .verify:
            bundleId = try reader.required(Self.bundleIdKey, by: user)
            appAppleId = try reader.optional(Self.appAppleIdKey).map(Int64.init)
            rootCertificatePaths = try reader.optional(Self.rootCertificates) ?? []
            environmentPolicy = EnvironmentPolicy(
                deployment: try reader.value(Self.deployment),
                acceptSandboxInProduction: try reader.value(Self.acceptSandbox),
                acceptXcode: try reader.value(Self.acceptXcode)
            )
            try readAppleAPI(reader, by: user)
            receiptValidation = try reader.value(Self.receiptValidationKey)
            verifyReceiptURL = try reader.value(Self.verifyReceiptURLKey)
            verifyReceiptSandboxURL = try reader.value(Self.verifyReceiptSandboxURLKey)
            verifyReceiptSharedSecret = try reader.optional(Self.verifyReceiptSharedSecretKey)
            ocsp = try reader.value(Self.ocspKey)
            ocspTimeout = try reader.value(Self.ocspTimeoutKey)
            ocspUnreachable = try reader.value(Self.ocspUnreachableKey)
        case .match:
            tokenScheme = try reader.optional(Self.tokenSchemeKey)
        case .grant:
            guard try reader.value(Self.consumptionAnswerKey) else { break }
            let by = "\(user) with IAP_CONSUMPTION_ANSWER"
            consumption = ConsumptionConfiguration(
                customerConsented: try reader.required(Self.consumptionCustomerConsentedKey, by: by),
                sampleContentProvided: try reader.value(Self.consumptionSampleContentKey),
                refundPreference: try reader.value(Self.consumptionRefundPreferenceKey),
                consumablesCountAsConsumed: try reader.value(Self.consumptionConsumablesConsumedKey)
            )
            try readAppleAPI(reader, by: by)
        }
    }

    /// What a stage that calls the Server API reads: the app, the key, the endpoints, the
    /// shared rate limit and the timeout (verify, and grant answering consumption requests).
    private mutating func readAppleAPI(_ reader: SettingsReader, by user: String) throws(SettingsError) {
        if bundleId.isEmpty { bundleId = try reader.required(Self.bundleIdKey, by: user) }
        appleAPI = AppleAPI(
            keyId: try reader.required(Self.appleKeyIdKey, by: user),
            issuerId: try reader.required(Self.appleIssuerIdKey, by: user),
            privateKeyPath: try reader.required(Self.applePrivateKeyPathKey, by: user)
        )
        appleAPIURL = try reader.value(Self.appleAPIURLKey)
        appleSandboxAPIURL = try reader.value(Self.appleSandboxAPIURLKey)
        appleRateLimit = try reader.value(Self.appleRateLimitKey)
        appleWaitInPlace = try reader.value(Self.appleWaitInPlaceKey)
        appleTimeout = try reader.value(Self.appleTimeoutKey)
    }

    /// The environment alone (tests).
    public init(stage: StageName, environment: [String: String]) throws(SettingsError) {
        try self.init(stage: stage, reader: SettingsReader(environment: environment))
    }
}
