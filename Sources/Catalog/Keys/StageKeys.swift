public import AppStoreModels
public import Settings

/// What each stage reads besides the worker's keys. Read by `StageSettings` (WorkerCommon),
/// which forwards these; the keys whose values are `AppStore` or `Purchases` types are declared
/// over their words here and mapped onto those types there (`Setting.map`).
public enum StageKeys {
    // MARK: Intake
    public static let maximumEventBytes = Setting<Int>.integer(
        "IAP_MAX_EVENT_BYTES", "Events larger than this are rejected as `malformed_event`", default: 1 << 20,
        in: 1...Int.max
    )

    // MARK: Verify
    public static let bundleId = Setting<String>.text(
        "IAP_BUNDLE_ID", "The app's bundle id (required by verify unless IAP_APPS lists the apps)")
    public static let apps = Setting<String>.text(
        "IAP_APPS",
        "A YAML file of the apps one deployment serves, instead of IAP_BUNDLE_ID and IAP_APP_APPLE_ID (docs/operations.md"
            + " \"Several apps\"); an event of another app is `unknown_app`")
    public static let appAppleId = Setting<Int>.integer(
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
    public static let appleKeyId = Setting<String>.text(
        "IAP_APPLE_KEY_ID", "In-App Purchase API key id (required by verify)")
    public static let appleIssuerId = Setting<String>.text(
        "IAP_APPLE_ISSUER_ID", "In-App Purchase API issuer id (required by verify)")
    public static let applePrivateKeyPath = Setting<String>.text(
        "IAP_APPLE_PRIVATE_KEY_PATH", "The API key's `.p8` file (required by verify)"
    )
    public static let appleAPIURL = Setting<String>.text(
        "IAP_APPLE_API_URL", "App Store Server API base URL", default: AppleEndpoints.serverAPIProduction
    )
    public static let appleSandboxAPIURL = Setting<String>.text(
        "IAP_APPLE_SANDBOX_API_URL", "Sandbox App Store Server API base URL", default: AppleEndpoints.serverAPISandbox
    )
    /// Purchases' `VerifyConfiguration.ReceiptValidation`, by its case names.
    public static let receiptValidation = Setting<String>.choice(
        "IAP_RECEIPT_VALIDATION", "How app receipts are checked", default: "serverAPI",
        words(["serverAPI", "verifyReceipt"])
    )
    public static let verifyReceiptURL = Setting<String>.text(
        "IAP_VERIFY_RECEIPT_URL", "verifyReceipt endpoint", default: AppleEndpoints.verifyReceiptProduction
    )
    public static let verifyReceiptSandboxURL = Setting<String>.text(
        "IAP_VERIFY_RECEIPT_SANDBOX_URL", "Sandbox verifyReceipt endpoint", default: AppleEndpoints.verifyReceiptSandbox
    )
    public static let verifyReceiptSharedSecret = Setting<String>.text(
        "IAP_VERIFY_RECEIPT_SHARED_SECRET", "verifyReceipt's app-specific shared secret", secret: true
    )
    public static let appleRateLimit = Setting<Int>.integer(
        "IAP_APPLE_RATE_LIMIT",
        "Apple calls per second shared by all replicas per endpoint, never above Apple's own limit for it (sandbox gets 10 %); 0 turns it off",
        default: 40,
        in: 0...Int.max
    )
    public static let appleWaitInPlace = Setting<Duration>.milliseconds(
        "IAP_APPLE_WAIT_IN_PLACE_MS",
        "The longest wait for a slot of the Apple budget a record waits in the worker; a later slot parks it"
            + " (a runtime wait, not an attempt)", default: 2000)
    public static let appleTimeout = Setting<Duration>.seconds(
        "IAP_APPLE_TIMEOUT_SECONDS", "Per Apple request", default: "10")
    public static let ocsp = Setting<Bool>.flag(
        "IAP_APPLE_OCSP",
        "Check leaf and intermediate revocation with Apple's OCSP responders (chains validated at now, answers"
            + " trusted 15 min)",
        default: false)
    public static let ocspTimeout = Setting<Duration>.milliseconds(
        "IAP_APPLE_OCSP_TIMEOUT_MS", "Per OCSP query (with IAP_APPLE_OCSP)", default: 5000)
    /// AppStore's `OCSPUnreachable`: `retry`, or `accept-offline` (`.acceptOfflineChain`).
    public static let ocspUnreachable = Setting<String>.choice(
        "IAP_APPLE_OCSP_UNREACHABLE",
        "When a responder cannot be reached: retry the purchase later, or accept the chain on its offline checks",
        default: "retry", words(["retry", "accept-offline"])
    )

    // MARK: Match
    /// Purchases' `AppAccountTokenScheme.settingNames`: its cases, and `md5Halves` (decision D29).
    public static let tokenScheme = Setting<String>.choice(
        "IAP_TOKEN_SCHEME", "How appAccountToken carries a user id when it is not an order token (docs/events.md)",
        words(["numericPaddedF", "md5ForwardReversed", "pkcs7Hex", "md5UserAndBundle", "md5Halves"])
    )

    // MARK: Grant: consumption requests (decision D34)
    public static let consumptionAnswer = Setting<Bool>.flag(
        "IAP_CONSUMPTION_ANSWER",
        "Answer CONSUMPTION_REQUEST notifications with Send Consumption Information (grant then needs IAP_BUNDLE_ID"
            + " and the IAP_APPLE_ key settings)",
        default: false)
    public static let consumptionCustomerConsented = Setting<Bool>.choice(
        "IAP_CONSUMPTION_CUSTOMER_CONSENTED",
        "Whether customers consented to sharing consumption data (required with IAP_CONSUMPTION_ANSWER; false"
            + " answers nothing)",
        ["true": true, "false": false])
    /// AppStore's `ConsumptionRequest.RefundPreference` by its raw values, or `none` (left out).
    public static let consumptionRefundPreference = Setting<String>.choice(
        "IAP_CONSUMPTION_REFUND_PREFERENCE", "`refundPreference` sent with each answer (none: left out)",
        default: "none", words(["none", "DECLINE", "GRANT_FULL", "GRANT_PRORATED"]))
    public static let consumptionSampleContent = Setting<Bool>.flag(
        "IAP_CONSUMPTION_SAMPLE_CONTENT_PROVIDED",
        "`sampleContentProvided`: the app offered a sample, trial or description before the purchase",
        default: false)
    public static let consumptionConsumablesConsumed = Setting<Bool>.flag(
        "IAP_CONSUMPTION_CONSUMABLES_CONSUMED",
        "A delivered consumable counts as fully consumed (off: `consumptionPercentage` left out)", default: true)

    // MARK: Confirm (issue 22 item 2, decision D55)
    public static let confirmFinishTransactions = Setting<Bool>.flag(
        "IAP_CONFIRM_FINISH_TRANSACTIONS",
        "Finish Transaction at Apple for every granted or renewed transaction, after the change is committed"
            + " (iap-confirm then needs IAP_BUNDLE_ID and the IAP_APPLE_ key settings)",
        default: false)
    public static let confirmAppAccountToken = Setting<Bool>.flag(
        "IAP_CONFIRM_APP_ACCOUNT_TOKEN",
        "Set App Account Token on a purchase matched by order or user, to the token IAP_TOKEN_SCHEME derives"
            + " from the user (required with it), so renewals carry it",
        default: false)

    /// The keys each stage reads, as the settings table lists them.
    public static let sections: [SettingsSection] = [
        SettingsSection("Intake", readBy: "iap-intake", [maximumEventBytes.descriptor]),
        SettingsSection(
            "Verify", readBy: "iap-verify",
            [
                bundleId.descriptor, apps.descriptor, appAppleId.descriptor, rootCertificates.descriptor,
                deployment.descriptor,
                acceptSandbox.descriptor, acceptXcode.descriptor, appleKeyId.descriptor, appleIssuerId.descriptor,
                applePrivateKeyPath.descriptor, appleAPIURL.descriptor, appleSandboxAPIURL.descriptor,
                receiptValidation.descriptor, verifyReceiptURL.descriptor, verifyReceiptSandboxURL.descriptor,
                verifyReceiptSharedSecret.descriptor, appleRateLimit.descriptor, appleWaitInPlace.descriptor,
                appleTimeout.descriptor, ocsp.descriptor, ocspTimeout.descriptor, ocspUnreachable.descriptor,
            ]),
        SettingsSection("Match", readBy: "iap-match", [tokenScheme.descriptor]),
        SettingsSection(
            "Consumption", readBy: "iap-grant",
            [
                consumptionAnswer.descriptor, consumptionCustomerConsented.descriptor,
                consumptionRefundPreference.descriptor, consumptionSampleContent.descriptor,
                consumptionConsumablesConsumed.descriptor,
            ]),
        SettingsSection(
            "Confirm", readBy: "iap-confirm", [confirmFinishTransactions.descriptor, confirmAppAccountToken.descriptor]),
    ]
}
