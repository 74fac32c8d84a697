/// An App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`).
///
/// Exactly one of `data`, `summary`, `externalPurchaseToken` or `appData` is present.
public struct ResponseBodyV2DecodedPayload: SignedPayload, Hashable {
    public var notificationType: NotificationTypeV2?
    public var subtype: NotificationSubtype?
    /// Stable across Apple's delivery retries: the inbound dedupe key.
    public var notificationUUID: String?
    public var version: String?
    public var signedDate: Timestamp?
    public var data: NotificationData?
    public var summary: NotificationSummary?
    public var externalPurchaseToken: ExternalPurchaseToken?
    public var appData: NotificationAppData?

    public init() {}

    public var signingDate: Timestamp? { self.signedDate }
}

/// The app and signed transaction data of a notification.
public struct NotificationData: Codable, Hashable, Sendable {
    public var environment: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    /// A nested JWS; verified together with the notification.
    public var signedTransactionInfo: String?
    /// A nested JWS; verified together with the notification.
    public var signedRenewalInfo: String?
    public var status: SubscriptionStatus?
    public var consumptionRequestReason: ConsumptionRequestReason?

    public init() {}
}

/// The outcome of a renewal-date extension for all subscribers (`RENEWAL_EXTENSION`/`SUMMARY`).
public struct NotificationSummary: Codable, Hashable, Sendable {
    public var environment: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    public var requestIdentifier: String?
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    public init() {}
}

/// An external purchase token (`EXTERNAL_PURCHASE_TOKEN`); it carries no environment field.
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    /// Starts with "SANDBOX" for sandbox tokens, which is how the environment is inferred.
    public var externalPurchaseId: String?
    public var tokenCreationDate: Timestamp?
    public var appAppleId: Int64?
    public var bundleId: String?
    /// `ACQUISITION` or `SERVICES` (Apple's `ExternalPurchaseTokenType`), kept as Apple spells it.
    public var tokenType: String?

    public init() {}

    /// The environment Apple implies through the `externalPurchaseId` prefix.
    public var impliedEnvironment: AppStoreEnvironment {
        (self.externalPurchaseId ?? "").hasPrefix("SANDBOX") ? .sandbox : .production
    }
}

/// App-level data of a notification (`appData`).
public struct NotificationAppData: Codable, Hashable, Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: AppStoreEnvironment?
    public var signedAppTransactionInfo: String?

    public init() {}
}
