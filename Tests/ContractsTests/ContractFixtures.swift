import AppStoreModels
import Contracts
import Purchases

/// One value of every contract type with every optional field set, so that each field of the
/// wire format appears in the golden bytes (``WireFormatGoldenTests``) and in the fast-path
/// round trips (``FastPathCompletenessTests``).
enum ContractFixtures {
    static func at(_ milliseconds: Int64) -> Timestamp { Timestamp(millisecondsSince1970: milliseconds) }

    static let hints = PublisherHints(
        eventId: "e-1", userId: "u-123", orderId: "o-456", appAccountToken: "7e3d2a1c-0000-4000-8000-000000000001",
        environment: .sandbox
    )

    static let transaction = TransactionDetails(
        transactionId: "2000000000000002", originalTransactionId: "2000000000000001", bundleId: "com.example.game",
        productId: "com.example.game.pro.monthly", productType: .autoRenewableSubscription, quantity: 2,
        environment: .sandbox,
        purchaseDate: at(1_763_000_000_123), originalPurchaseDate: at(1_700_000_000_000),
        expiresDate: at(1_765_000_000_999),
        revocationDate: at(1_764_000_000_001), revocationReason: RevocationReason(rawValue: 1),
        appAccountToken: "7E3D2A1C-0000-4000-8000-000000000001", inAppOwnershipType: .familyShared, isUpgraded: true,
        signedDate: at(1_763_000_001_000), webOrderLineItemId: "web-1", subscriptionGroupIdentifier: "group-1",
        price: 9_990, currency: "EUR", storefront: "DEU", offerType: .promotionalOffer, offerIdentifier: "spring",
        originalApplicationVersion: "1.0", commitmentInfo: commitment, advancedCommerceInfo: advancedCommerce
    )

    /// Apple's nested models (D59), every field set, decoded as the pipeline reads them.
    static let commitment = decoded(
        TransactionCommitmentInfo.self,
        #"{"billingPeriodNumber":3,"commitmentExpiresDate":"2026-11-13T02:13:20.000Z","commitmentPrice":119880,"totalBillingPeriods":12}"#
    )
    static let advancedCommerce = decoded(
        AdvancedCommerceTransactionInfo.self,
        #"{"descriptors":{"description":"All the levels","displayName":"Level pass"},"estimatedTax":1000,"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"refunds":[{"refundAmount":990,"refundDate":"2025-11-20T00:00:00.000Z","refundReason":"UNINTENDED_PURCHASE","refundType":"PRORATED"}],"revocationDate":"2025-11-21T00:00:00.000Z"}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2","taxExclusivePrice":8990,"taxRate":"0.10"}"#
    )
    static let renewalCommitment = decoded(
        RenewalCommitmentInfo.self,
        #"{"commitmentAutoRenewProductId":"com.example.game.pro.yearly","commitmentAutoRenewStatus":1,"commitmentRenewalBillingPlanType":"MONTHLY","commitmentRenewalDate":"2026-11-13T02:13:20.000Z","commitmentRenewalPrice":119880}"#
    )
    static let renewalAdvancedCommerce = decoded(
        AdvancedCommerceRenewalInfo.self,
        #"{"consistencyToken":"ct-1","descriptors":{"description":"All the levels","displayName":"Level pass"},"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"priceIncreaseInfo":{"dependentSKUs":["levels.bonus"],"price":10990,"status":"SCHEDULED"}}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2"}"#
    )

    static func decoded<Value: Decodable>(_ type: Value.Type, _ json: String) -> Value {
        do {
            return try EventDecoder.decodeWithCodable(type, from: Array(json.utf8))
        } catch {
            preconditionFailure("the fixture of \(type) does not decode: \(error)")
        }
    }

    static let notification = NotificationContext(
        notificationType: .didRenew, subtype: .billingRecovery, notificationUUID: "n-1",
        signedDate: at(1_763_000_001_500)
    )

    static let renewal = RenewalDetails(
        autoRenewProductId: "com.example.game.pro.yearly", autoRenewStatus: .on, expirationIntent: .billingError,
        isInBillingRetryPeriod: true, gracePeriodExpiresDate: at(1_765_500_000_000), offerType: .winBackOffer,
        offerIdentifier: "come-back", commitmentInfo: renewalCommitment, advancedCommerceInfo: renewalAdvancedCommerce)

    static let purchases: [PurchaseEvent] = [
        .signedTransaction("h.p/+.s"), .appReceipt("MIIreceipt/+="), .transactionReceipt("ewoib2xk"),
        .transactionId("2000000000000002"), .appTransaction("h.p/+.s"),
    ].map {
        PurchaseEvent(
            eventId: "e-1", bundleId: "com.example.game", userId: "u-123", payload: $0, orderId: "o-456",
            appAccountToken: "7e3d2a1c-0000-4000-8000-000000000001", environment: .sandbox, source: .storeKit2,
            signedRenewalInfo: "r.p/+.s"
        )
    }

    static let order = OrderEvent(
        orderId: "o-456", userId: "u-123", productId: "gems_100", bundleId: "com.example.game",
        appAccountToken: "7e3d2a1c-0000-4000-8000-000000000001", quantity: 1
    )

    static let notificationEvent = NotificationEvent(
        receivedAt: at(1_795_294_800_750), signedPayload: "h.p/+.s", source: .reconcile)

    static let verifyRequest = VerifyRequest(
        kind: .notification, payload: "h.p/+.s", bundleId: "com.example.game", hints: hints, source: .notification,
        receivedAt: at(1_763_000_002_000), notificationUUID: "n-1", signedRenewalInfo: "r.p/+.s"
    )

    static let verified = VerifiedTransaction(
        transaction: transaction, hints: hints, source: .notification, receivedAt: at(1_763_000_002_000),
        verifiedAt: at(1_763_000_002_345), notification: notification, renewal: renewal
    )

    static let matched = MatchedTransaction(
        verified: verified, userId: "u-123", orderId: "o-456", matchedBy: .appAccountToken,
        warnings: [.orderAlreadyClaimed, .userHintMismatch]
    )

    static let unmatched = UnmatchedTransaction(
        verified: verified, since: at(1_763_000_002_400), unmatchedAt: at(1_763_086_402_400), reason: .noOrderOrUser
    )

    static let entitlement = EntitlementEvent(
        eventId: "ev-1", action: .revoke, userId: "u-123", orderId: "o-456", bundleId: "com.example.game",
        productId: "com.example.game.pro.monthly", productType: .autoRenewableSubscription, quantity: 2,
        transactionId: "2000000000000002", originalTransactionId: "2000000000000001", environment: .sandbox,
        purchaseDate: at(1_763_000_000_123), expiresDate: at(1_765_000_000_999), revocationDate: at(1_764_000_000_001),
        matchedBy: .orderId, warnings: [.orderNeverArrived], source: .storeKit2, status: .gracePeriod,
        gracePeriodExpiresDate: at(1_765_500_000_000), autoRenewStatus: .off, expirationIntent: .billingError,
        revocationReason: RevocationReason(rawValue: 1), offerType: .promotionalOffer, offerIdentifier: "spring",
        price: 9_990, currency: "EUR", storefront: "DEU", sequence: 3, originalApplicationVersion: "1.0",
        commitmentInfo: commitment, advancedCommerceInfo: advancedCommerce
    )

    static let state = EntitlementState(
        originalTransactionId: "2000000000000001", userId: "u-123", orderId: "o-456",
        productId: "com.example.game.pro.monthly",
        productType: .autoRenewableSubscription, transactionId: "2000000000000002", purchaseDate: at(1_763_000_000_123),
        expiresDate: at(1_765_000_000_999), status: .revoked, signedDate: at(1_763_000_001_000),
        revokedTransactionIds: ["2000000000000002"], gracePeriodExpiresDate: at(1_765_500_000_000),
        autoRenewStatus: .off, autoRenewProductId: "com.example.game.pro.yearly", expirationIntent: .billingError,
        revocationReason: RevocationReason(rawValue: 0), changes: 3
    )

    /// Every field of an audit entry set (no one entry of the pipeline has all of them).
    static let audit: AuditEntry = {
        var entry = AuditEntry(
            stage: "match", decision: .matched, at: at(1_790_000_000_000),
            subject: AuditSubject(
                eventId: "evt-1", notificationUUID: "0f1e2d3c-0000-4000-8000-000000000001",
                bundleId: "com.example.game",
                transactionId: "2000000100", originalTransactionId: "2000000001", userId: "alice"),
            reason: "a reason", detail: "the publisher named bob")
        entry.transactions = ["2000000100", "2000000101"]
        entry.environment = .sandbox
        entry.matchedBy = .appAccountToken
        entry.orderId = "order-1"
        entry.warnings = [.userHintMismatch]
        entry.effects = [.grant, .revoke]
        return entry.identified()
    }()
}
