public import AppStoreModels

/// Intake → verify (`iap.verify-request.v1` on `iap.verify`, key: the routing key).
///
/// One purchase or notification, validated and normalised, still unverified. Field reference:
/// docs/events.md.
public struct VerifyRequest: PipelineEvent, Hashable {
    public static let schema = "iap.verify-request.v1"

    /// What ``payload`` holds.
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        case signedTransaction
        case appReceipt
        case transactionReceipt
        case transactionId
        /// A notification's `signedPayload`.
        case notification
        /// A signed AppTransaction (D58).
        case appTransaction
    }

    public private(set) var schema: String = Self.schema
    public var kind: Kind
    /// The Apple artefact, trimmed.
    public var payload: String
    /// The publisher's bundle id; for notifications the unverified `bundleId` inside, if any.
    public var bundleId: String?
    public var hints: PublisherHints
    public var source: PurchaseSource
    /// When intake accepted a purchase, or when the gateway received a notification.
    public var receivedAt: Timestamp
    /// For notifications: the unverified `notificationUUID`, so the verify stage can guard on
    /// it before verifying (Apple's delivery retries keep it).
    public var notificationUUID: String?
    /// For signed transactions: the publisher's `signedRenewalInfo` of the subscription, still
    /// unverified (decision D32); verify turns it into ``VerifiedTransaction/renewal``.
    public var signedRenewalInfo: String?

    public init(
        kind: Kind,
        payload: String,
        bundleId: String?,
        hints: PublisherHints,
        source: PurchaseSource,
        receivedAt: Timestamp,
        notificationUUID: String? = nil,
        signedRenewalInfo: String? = nil
    ) {
        self.kind = kind
        self.payload = payload
        self.bundleId = bundleId
        self.hints = hints
        self.source = source
        self.receivedAt = receivedAt
        self.notificationUUID = notificationUUID
        self.signedRenewalInfo = signedRenewalInfo
    }

    // dedupeKey and idempotencyKey: BusinessKeys.swift.
}
