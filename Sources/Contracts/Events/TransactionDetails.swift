public import AppStoreModels

/// The fields of an Apple-verified transaction that match and grant act on.
///
/// Built only from data Apple vouched for: a JWS that passed `SignedDataVerifier`, or a
/// verifyReceipt answer. Field reference: docs/events.md.
public struct TransactionDetails: Codable, Hashable, Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var bundleId: String
    public var productId: String
    /// nil only for legacy verifyReceipt records, which do not state the type of one-time purchases.
    public var productType: ProductType?
    public var quantity: Int
    public var purchaseDate: Timestamp?
    public var originalPurchaseDate: Timestamp?
    public var expiresDate: Timestamp?
    public var revocationDate: Timestamp?
    public var revocationReason: RevocationReason?
    /// As Apple signed it (matching canonicalises it).
    public var appAccountToken: String?
    public var environment: AppStoreEnvironment
    public var inAppOwnershipType: InAppOwnershipType?
    /// Apple re-signs the old transaction of an immediate upgrade with `isUpgraded` true.
    public var isUpgraded: Bool?
    /// When Apple signed this view of the transaction: orders updates of the same transaction.
    public var signedDate: Timestamp?
    public var webOrderLineItemId: String?
    public var subscriptionGroupIdentifier: String?
    /// What the customer paid, in milliunits of `currency` (Apple's `price`; 1990 = 1.99).
    public var price: Int64?
    /// ISO 4217 code of `price`.
    public var currency: String?
    /// ISO 3166-1 alpha-3 storefront of the purchase.
    public var storefront: String?
    /// The offer applied to this transaction (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: OfferType?
    public var offerIdentifier: String?
    /// Of an app's own purchase (``AppStoreModels/ProductType/app``): the app version the
    /// customer first bought, for business models that changed (paid, then free).
    public var originalApplicationVersion: String?
    /// Apple's `commitmentInfo`: which period of a subscription with a commitment this pays (D59).
    public var commitmentInfo: TransactionCommitmentInfo?
    /// Apple's `advancedCommerceInfo`: the SKUs, prices and taxes of an Advanced Commerce
    /// purchase, what its app grants by (D59).
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?

    public init(
        transactionId: String,
        originalTransactionId: String,
        bundleId: String,
        productId: String,
        productType: ProductType?,
        quantity: Int = 1,
        environment: AppStoreEnvironment,
        purchaseDate: Timestamp? = nil,
        originalPurchaseDate: Timestamp? = nil,
        expiresDate: Timestamp? = nil,
        revocationDate: Timestamp? = nil,
        revocationReason: RevocationReason? = nil,
        appAccountToken: String? = nil,
        inAppOwnershipType: InAppOwnershipType? = nil,
        isUpgraded: Bool? = nil,
        signedDate: Timestamp? = nil,
        webOrderLineItemId: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        price: Int64? = nil,
        currency: String? = nil,
        storefront: String? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        originalApplicationVersion: String? = nil,
        commitmentInfo: TransactionCommitmentInfo? = nil,
        advancedCommerceInfo: AdvancedCommerceTransactionInfo? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.bundleId = bundleId
        self.productId = productId
        self.productType = productType
        self.quantity = quantity
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.isUpgraded = isUpgraded
        self.signedDate = signedDate
        self.webOrderLineItemId = webOrderLineItemId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.originalApplicationVersion = originalApplicationVersion
        self.commitmentInfo = commitmentInfo
        self.advancedCommerceInfo = advancedCommerceInfo
    }

    /// The fields of a verified `JWSTransactionDecodedPayload`. Apple always sets the ids,
    /// bundle, product and environment; a payload without them cannot be acted on.
    public init(verified payload: JWSTransactionDecodedPayload) throws(Rejection) {
        func required(_ value: String?, _ name: String) throws(Rejection) -> String {
            guard let value = value?.trimmedNonEmpty else {
                throw Rejection(.malformedEvent, "signed transaction has no \(name)")
            }
            return value
        }
        guard let environment = payload.environment else {
            throw Rejection(.wrongEnvironment, "signed transaction has no environment")
        }
        let transactionId = try required(payload.transactionId, "transactionId")
        self.init(
            transactionId: transactionId,
            originalTransactionId: payload.originalTransactionId?.trimmedNonEmpty ?? transactionId,
            bundleId: try required(payload.bundleId, "bundleId"),
            productId: try required(payload.productId, "productId"),
            productType: payload.type,
            quantity: payload.quantity.map(Int.init) ?? 1,
            environment: environment,
            purchaseDate: payload.purchaseDate,
            originalPurchaseDate: payload.originalPurchaseDate,
            expiresDate: payload.expiresDate,
            revocationDate: payload.revocationDate,
            revocationReason: payload.revocationReason,
            appAccountToken: payload.appAccountToken,
            inAppOwnershipType: payload.inAppOwnershipType,
            isUpgraded: payload.isUpgraded,
            signedDate: payload.signedDate,
            webOrderLineItemId: payload.webOrderLineItemId,
            subscriptionGroupIdentifier: payload.subscriptionGroupIdentifier,
            price: payload.price,
            currency: payload.currency,
            storefront: payload.storefront,
            offerType: payload.offerType,
            offerIdentifier: payload.offerIdentifier,
            commitmentInfo: payload.commitmentInfo,
            advancedCommerceInfo: payload.advancedCommerceInfo
        )
    }
}

extension TransactionDetails {
    /// What every id of the app's own purchase starts with.
    public static let appPurchaseIdPrefix = "app-"

    /// The transaction id of a customer's own purchase of the app: `app-<appTransactionId>`.
    public static func appPurchaseId(appTransactionId: String) -> String {
        appPurchaseIdPrefix + appTransactionId
    }

    /// The app's own purchase in a verified AppTransaction (D58): one "transaction" per customer
    /// of the app, `app-<appTransactionId>` (never an id Apple gives an in-app purchase), of the
    /// product named like the app, bought when the customer first got the app or pre-ordered it.
    /// An AppTransaction without `appTransactionId` (before iOS 18.4) names no purchase that can
    /// be granted once.
    public init(appTransaction payload: AppTransaction) throws(Rejection) {
        guard let appTransactionId = payload.appTransactionId?.trimmedNonEmpty else {
            throw Rejection(.receiptInvalid, "appTransaction has no appTransactionId (StoreKit before iOS 18.4)")
        }
        guard let bundleId = payload.bundleId?.trimmedNonEmpty else {
            throw Rejection(.malformedEvent, "appTransaction has no bundleId")
        }
        guard let environment = payload.receiptType else {
            throw Rejection(.wrongEnvironment, "appTransaction has no receiptType")
        }
        let id = Self.appPurchaseId(appTransactionId: appTransactionId)
        self.init(
            transactionId: id, originalTransactionId: id, bundleId: bundleId, productId: bundleId, productType: .app,
            environment: environment, purchaseDate: payload.originalPurchaseDate ?? payload.preorderDate,
            originalPurchaseDate: payload.originalPurchaseDate, signedDate: payload.receiptCreationDate,
            originalApplicationVersion: payload.originalApplicationVersion)
    }
}
