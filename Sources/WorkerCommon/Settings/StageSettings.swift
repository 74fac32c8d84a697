public import AppStore
public import AppStoreModels
import Catalog
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
    public static let maximumEventBytes = StageKeys.maximumEventBytes

    // MARK: Verify
    public static let bundleIdKey = StageKeys.bundleId
    public static let appsKey = StageKeys.apps
    public static let appAppleIdKey = StageKeys.appAppleId
    public static let rootCertificates = StageKeys.rootCertificates
    public static let deployment = StageKeys.deployment
    public static let acceptSandbox = StageKeys.acceptSandbox
    public static let acceptXcode = StageKeys.acceptXcode
    public static let appleKeyIdKey = StageKeys.appleKeyId
    public static let appleIssuerIdKey = StageKeys.appleIssuerId
    public static let applePrivateKeyPathKey = StageKeys.applePrivateKeyPath
    public static let appleAPIURLKey = StageKeys.appleAPIURL
    public static let appleSandboxAPIURLKey = StageKeys.appleSandboxAPIURL
    public static let receiptValidationKey = StageKeys.receiptValidation.map { word in
        ["serverAPI": VerifyConfiguration.ReceiptValidation.serverAPI, "verifyReceipt": .verifyReceipt][word]
    }
    public static let verifyReceiptURLKey = StageKeys.verifyReceiptURL
    public static let verifyReceiptSandboxURLKey = StageKeys.verifyReceiptSandboxURL
    public static let verifyReceiptSharedSecretKey = StageKeys.verifyReceiptSharedSecret
    public static let appleRateLimitKey = StageKeys.appleRateLimit
    public static let appleWaitInPlaceKey = StageKeys.appleWaitInPlace
    public static let appleTimeoutKey = StageKeys.appleTimeout
    public static let ocspKey = StageKeys.ocsp
    public static let ocspTimeoutKey = StageKeys.ocspTimeout
    public static let ocspUnreachableKey = StageKeys.ocspUnreachable.map { word in
        ["retry": OCSPUnreachable.retry, "accept-offline": .acceptOfflineChain][word]
    }

    // MARK: Match
    public static let tokenSchemeKey = StageKeys.tokenScheme.map { AppAccountTokenScheme.settingNames[$0] }

    // MARK: Grant: consumption requests (decision D34)
    public static let consumptionAnswerKey = StageKeys.consumptionAnswer
    public static let consumptionCustomerConsentedKey = StageKeys.consumptionCustomerConsented
    public static let consumptionRefundPreferenceKey = StageKeys.consumptionRefundPreference.map { word in
        let preferences: [String: ConsumptionRequest.RefundPreference?] = [
            "none": nil, "DECLINE": .decline, "GRANT_FULL": .grantFull, "GRANT_PRORATED": .grantProrated,
        ]
        return preferences[word]
    }
    public static let consumptionSampleContentKey = StageKeys.consumptionSampleContent
    public static let consumptionConsumablesConsumedKey = StageKeys.consumptionConsumablesConsumed

    /// The keys each stage reads, as the settings table lists them.
    public static let sections = StageKeys.sections

    public var maximumEventBytes = 1 << 20
    /// The apps the deployment serves (D57): `IAP_APPS`, or the one app of `IAP_BUNDLE_ID`;
    /// empty for stages that never tell apps apart (intake, match, state).
    public var apps: [AppSettings] = []
    public var rootCertificatePaths: [String] = []
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
    /// What confirm tells Apple (both off by default).
    public var confirm = ConfirmConfiguration()

    /// Reads `stage`'s keys; a key the stage cannot run without is an error naming it.
    public init(stage: StageName, reader: SettingsReader) throws(SettingsError) {
        let user = stage.executable
        switch stage {
        case .intake:
            maximumEventBytes = try reader.value(Self.maximumEventBytes)
        case .verify:
            rootCertificatePaths = try reader.optional(Self.rootCertificates) ?? []
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
        case .state:
            break
        case .confirm:
            confirm.finishTransactions = try reader.value(StageKeys.confirmFinishTransactions)
            if try reader.value(StageKeys.confirmAppAccountToken) {
                confirm.appAccountTokenScheme = try reader.required(
                    Self.tokenSchemeKey, by: "\(user) with IAP_CONFIRM_APP_ACCOUNT_TOKEN")
            }
            if confirm.isEnabled { try readAppleAPI(reader, by: user) }
        }
    }

    /// What a stage that calls the Server API reads: the apps with their keys, the endpoints,
    /// the shared rate limit and the timeout (verify, grant answering consumption requests,
    /// confirm).
    private mutating func readAppleAPI(_ reader: SettingsReader, by user: String) throws(SettingsError) {
        try readApps(reader, by: user)
        appleAPIURL = try reader.value(Self.appleAPIURLKey)
        appleSandboxAPIURL = try reader.value(Self.appleSandboxAPIURLKey)
        appleRateLimit = try reader.value(Self.appleRateLimitKey)
        appleWaitInPlace = try reader.value(Self.appleWaitInPlaceKey)
        appleTimeout = try reader.value(Self.appleTimeoutKey)
    }

    /// The apps: those of `IAP_APPS` (a field left out takes the deployment's key), or the one
    /// app of `IAP_BUNDLE_ID`, `IAP_APP_APPLE_ID` and the `IAP_APPLE_` key. Every app gets a key.
    private mutating func readApps(_ reader: SettingsReader, by user: String) throws(SettingsError) {
        let policy = EnvironmentPolicy(
            deployment: try reader.value(Self.deployment),
            acceptSandboxInProduction: try reader.value(Self.acceptSandbox),
            acceptXcode: try reader.value(Self.acceptXcode)
        )
        guard let path = try reader.optional(Self.appsKey) else {
            apps = [
                AppSettings(
                    bundleId: try reader.required(Self.bundleIdKey, by: user),
                    appAppleId: try reader.optional(Self.appAppleIdKey).map(Int64.init), environmentPolicy: policy,
                    appleKey: AppSettings.AppleKey(
                        keyId: try reader.required(Self.appleKeyIdKey, by: user),
                        issuerId: try reader.required(Self.appleIssuerIdKey, by: user),
                        privateKeyPath: try reader.required(Self.applePrivateKeyPathKey, by: user)))
            ]
            return
        }
        for single in [Self.bundleIdKey.name, Self.appAppleIdKey.name] where reader.lookup(single) != nil {
            throw SettingsError(
                .contradiction, key: single, "\(single) is set with IAP_APPS: the apps file names each app and its id")
        }
        let keyNames = [Self.appleKeyIdKey, Self.appleIssuerIdKey, Self.applePrivateKeyPathKey]
        let key = try keyNames.map { key throws(SettingsError) in try reader.optional(key) }
        var defaultKey: AppSettings.AppleKey?
        if let keyId = key[0], let issuerId = key[1], let privateKeyPath = key[2] {
            defaultKey = AppSettings.AppleKey(keyId: keyId, issuerId: issuerId, privateKeyPath: privateKeyPath)
        } else if let set = zip(keyNames, key).first(where: { $0.1 != nil }),
            let unset = zip(keyNames, key).first(where: { $0.1 == nil })
        {
            // Half a key is a mistake, even when every app has one of its own.
            throw SettingsError(
                .missing, key: unset.0.name, "\(set.0.name) is set without \(unset.0.name): a key is all three")
        }
        apps = try AppsFile.load(path: path, defaults: .init(environmentPolicy: policy, appleKey: defaultKey))
        if let keyless = apps.first(where: { $0.appleKey == nil }) {
            let missing = zip(keyNames, key).first { $0.1 == nil }?.0.name ?? Self.appleKeyIdKey.name
            throw SettingsError(
                .missing, key: missing,
                "\(user) needs \(missing): app '\(keyless.bundleId)' of IAP_APPS has no appleKey of its own")
        }
    }

    /// The app of an event's bundle id; nil for an app the deployment does not serve. An event
    /// that names none (a notification without data) belongs to the only app, if there is one.
    public func app(_ bundleId: String?) -> AppSettings? {
        guard let bundleId else { return apps.count == 1 ? apps[0] : nil }
        return apps.first { $0.bundleId == bundleId }
    }

    /// The environment alone (tests).
    public init(stage: StageName, environment: [String: String]) throws(SettingsError) {
        try self.init(stage: stage, reader: SettingsReader(environment: environment))
    }
}
