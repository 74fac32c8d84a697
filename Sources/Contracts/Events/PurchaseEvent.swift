public import AppStoreModels

/// A purchase a backend publishes (`iap.purchase.v1` on `iap.purchases`, key: userId).
///
/// Only what Apple signed is trusted; everything else here is a hint. Exactly one payload field
/// is present, which ``payload`` makes impossible to get wrong once decoded.
public struct PurchaseEvent: PipelineEvent, Hashable {
    public static let schema = "iap.purchase.v1"

    public private(set) var schema: String = Self.schema
    /// Unique id chosen by the publisher.
    public var eventId: String
    public var bundleId: String
    public var userId: String
    public var orderId: String?
    public var appAccountToken: String?
    /// "Production" or "Sandbox" (checked at intake).
    public var environment: AppStoreEnvironment?
    public var source: PurchaseSource?
    public var payload: PurchasePayload
    /// The subscription's `signedRenewalInfo`, next to a `signedTransaction` (what
    /// `iap-reconcile` read from Get All Subscription Statuses, decision D32): verify checks it
    /// and carries it as the verified record's `renewal`.
    public var signedRenewalInfo: String?

    public init(
        eventId: String,
        bundleId: String,
        userId: String,
        payload: PurchasePayload,
        orderId: String? = nil,
        appAccountToken: String? = nil,
        environment: AppStoreEnvironment? = nil,
        source: PurchaseSource? = nil,
        signedRenewalInfo: String? = nil
    ) {
        self.eventId = eventId
        self.bundleId = bundleId
        self.userId = userId
        self.payload = payload
        self.orderId = orderId
        self.appAccountToken = appAccountToken
        self.environment = environment
        self.source = source
        self.signedRenewalInfo = signedRenewalInfo
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case schema, eventId, bundleId, userId, orderId, appAccountToken, environment, source, signedRenewalInfo
        case signedTransaction, appReceipt, transactionReceipt, transactionId, appTransaction
    }

    static let payloadKeys: [CodingKeys] = [
        .signedTransaction, .appReceipt, .transactionReceipt, .transactionId, .appTransaction,
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.schema = try container.decode(String.self, forKey: .schema)
        self.eventId = try container.decode(String.self, forKey: .eventId)
        self.bundleId = try container.decode(String.self, forKey: .bundleId)
        self.userId = try container.decode(String.self, forKey: .userId)
        self.orderId = try container.decodeIfPresent(String.self, forKey: .orderId)
        self.appAccountToken = try container.decodeIfPresent(String.self, forKey: .appAccountToken)
        self.environment = try container.decodeIfPresent(AppStoreEnvironment.self, forKey: .environment)
        self.source = try container.decodeIfPresent(PurchaseSource.self, forKey: .source)
        self.signedRenewalInfo = try container.decodeIfPresent(String.self, forKey: .signedRenewalInfo)

        var found: [(CodingKeys, String)] = []
        for key in Self.payloadKeys {
            if let value = try container.decodeIfPresent(String.self, forKey: key) { found.append((key, value)) }
        }
        guard found.count == 1, let only = found.first else {
            let names = Self.payloadKeys.map(\.rawValue).joined(separator: ", ")
            let present = found.isEmpty ? "none" : found.map(\.0.rawValue).joined(separator: " and ")
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [],
                    debugDescription: "exactly one of \(names) is required; found \(present)"
                ))
        }
        let (key, value) = only
        self.payload =
            switch key {
            case .signedTransaction: .signedTransaction(value)
            case .appReceipt: .appReceipt(value)
            case .transactionReceipt: .transactionReceipt(value)
            case .appTransaction: .appTransaction(value)
            default: .transactionId(value)
            }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.schema, forKey: .schema)
        try container.encode(self.eventId, forKey: .eventId)
        try container.encode(self.bundleId, forKey: .bundleId)
        try container.encode(self.userId, forKey: .userId)
        try container.encodeIfPresent(self.orderId, forKey: .orderId)
        try container.encodeIfPresent(self.appAccountToken, forKey: .appAccountToken)
        try container.encodeIfPresent(self.environment, forKey: .environment)
        try container.encodeIfPresent(self.source, forKey: .source)
        try container.encodeIfPresent(self.signedRenewalInfo, forKey: .signedRenewalInfo)
        let payloadKey: CodingKeys =
            switch self.payload {
            case .signedTransaction: .signedTransaction
            case .appReceipt: .appReceipt
            case .transactionReceipt: .transactionReceipt
            case .transactionId: .transactionId
            case .appTransaction: .appTransaction
            }
        try container.encode(self.payload.value, forKey: payloadKey)
    }
}

/// The one Apple artefact a purchase event carries.
public enum PurchasePayload: Hashable, Sendable {
    /// StoreKit 2 `jwsRepresentation`.
    case signedTransaction(String)
    /// Base64 PKCS#7 app receipt (`appStoreReceiptURL`).
    case appReceipt(String)
    /// Base64 StoreKit 1 `transactionReceipt`.
    case transactionReceipt(String)
    /// A bare transaction id, looked up with Apple.
    case transactionId(String)
    /// StoreKit 2 `AppTransaction.shared`'s `jwsRepresentation`: the app's own purchase (a
    /// paid app, a pre-order, the version first bought; decision D58).
    case appTransaction(String)

    /// The verify request kind; its raw value is also this payload's JSON field name.
    public var kind: VerifyRequest.Kind {
        switch self {
        case .signedTransaction: .signedTransaction
        case .appReceipt: .appReceipt
        case .transactionReceipt: .transactionReceipt
        case .transactionId: .transactionId
        case .appTransaction: .appTransaction
        }
    }

    public var value: String {
        switch self {
        case .signedTransaction(let value), .appReceipt(let value), .transactionReceipt(let value),
            .transactionId(let value), .appTransaction(let value):
            value
        }
    }
}
