import Contracts
import Foundation
import Purchases
import Testing

/// The exact bytes of every contract type written to a topic or to Redis, on fixed values with
/// every optional field set. Recorded before the contracts moved into one module, so a change
/// here is a change of the wire format, never a side effect of a refactoring.
@Suite(.timeLimit(.minutes(2))) struct WireFormatGoldenTests {
    /// What `EventEncoder` writes (the fast path where there is one) and what its `Codable` path
    /// writes must both be `golden`, and `golden` must read back through `Codable`.
    static func check<Value: Codable & Equatable>(
        _ value: Value, _ golden: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(
            String(decoding: try EventEncoder.encode(value: value), as: UTF8.self) == golden,
            sourceLocation: sourceLocation)
        #expect(
            String(decoding: try EventEncoder.encodeWithCodable(value), as: UTF8.self) == golden,
            sourceLocation: sourceLocation)
        #expect(
            try EventDecoder.decodeWithCodable(Value.self, from: Data(golden.utf8)) == value,
            sourceLocation: sourceLocation)
    }

    @Test func purchase() throws {
        let goldens = [
            #"{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","bundleId":"com.example.game","environment":"Sandbox","eventId":"e-1","orderId":"o-456","schema":"iap.purchase.v1","signedRenewalInfo":"r.p/+.s","signedTransaction":"h.p/+.s","source":"storekit2","userId":"u-123"}"#,
            #"{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","appReceipt":"MIIreceipt/+=","bundleId":"com.example.game","environment":"Sandbox","eventId":"e-1","orderId":"o-456","schema":"iap.purchase.v1","signedRenewalInfo":"r.p/+.s","source":"storekit2","userId":"u-123"}"#,
            #"{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","bundleId":"com.example.game","environment":"Sandbox","eventId":"e-1","orderId":"o-456","schema":"iap.purchase.v1","signedRenewalInfo":"r.p/+.s","source":"storekit2","transactionReceipt":"ewoib2xk","userId":"u-123"}"#,
            #"{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","bundleId":"com.example.game","environment":"Sandbox","eventId":"e-1","orderId":"o-456","schema":"iap.purchase.v1","signedRenewalInfo":"r.p/+.s","source":"storekit2","transactionId":"2000000000000002","userId":"u-123"}"#,
        ]
        for (value, golden) in zip(ContractFixtures.purchases, goldens) { try Self.check(value, golden) }
    }

    @Test func order() throws {
        try Self.check(
            ContractFixtures.order,
            #"{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","bundleId":"com.example.game","orderId":"o-456","productId":"gems_100","quantity":1,"schema":"iap.order.v1","userId":"u-123"}"#
        )
    }

    @Test func notification() throws {
        try Self.check(
            ContractFixtures.notificationEvent,
            #"{"receivedAt":"2026-11-21T21:00:00.750Z","schema":"iap.notification.v1","signedPayload":"h.p/+.s","source":"reconcile"}"#
        )
        // The gateway's form: no source (D32).
        var received = ContractFixtures.notificationEvent
        received.source = nil
        try Self.check(
            received,
            #"{"receivedAt":"2026-11-21T21:00:00.750Z","schema":"iap.notification.v1","signedPayload":"h.p/+.s"}"#)
    }

    @Test func verifyRequest() throws {
        try Self.check(
            ContractFixtures.verifyRequest,
            #"{"bundleId":"com.example.game","hints":{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","environment":"Sandbox","eventId":"e-1","orderId":"o-456","userId":"u-123"},"kind":"notification","notificationUUID":"n-1","payload":"h.p/+.s","receivedAt":"2025-11-13T02:13:22.000Z","schema":"iap.verify-request.v1","signedRenewalInfo":"r.p/+.s","source":"notification"}"#
        )
    }

    @Test func verified() throws {
        try Self.check(
            ContractFixtures.verified,
            #"{"hints":{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","environment":"Sandbox","eventId":"e-1","orderId":"o-456","userId":"u-123"},"notification":{"notificationType":"DID_RENEW","notificationUUID":"n-1","signedDate":"2025-11-13T02:13:21.500Z","subtype":"BILLING_RECOVERY"},"receivedAt":"2025-11-13T02:13:22.000Z","renewal":{"advancedCommerceInfo":{"consistencyToken":"ct-1","descriptors":{"description":"All the levels","displayName":"Level pass"},"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"priceIncreaseInfo":{"dependentSKUs":["levels.bonus"],"price":10990,"status":"SCHEDULED"}}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2"},"autoRenewProductId":"com.example.game.pro.yearly","autoRenewStatus":1,"commitmentInfo":{"commitmentAutoRenewProductId":"com.example.game.pro.yearly","commitmentAutoRenewStatus":1,"commitmentRenewalBillingPlanType":"MONTHLY","commitmentRenewalDate":"2026-11-13T02:13:20.000Z","commitmentRenewalPrice":119880},"expirationIntent":2,"gracePeriodExpiresDate":"2025-12-12T00:40:00.000Z","isInBillingRetryPeriod":true,"offerIdentifier":"come-back","offerType":4},"schema":"iap.verified.v1","source":"notification","transaction":{"advancedCommerceInfo":{"descriptors":{"description":"All the levels","displayName":"Level pass"},"estimatedTax":1000,"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"refunds":[{"refundAmount":990,"refundDate":"2025-11-20T00:00:00.000Z","refundReason":"UNINTENDED_PURCHASE","refundType":"PRORATED"}],"revocationDate":"2025-11-21T00:00:00.000Z"}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2","taxExclusivePrice":8990,"taxRate":"0.10"},"appAccountToken":"7E3D2A1C-0000-4000-8000-000000000001","bundleId":"com.example.game","commitmentInfo":{"billingPeriodNumber":3,"commitmentExpiresDate":"2026-11-13T02:13:20.000Z","commitmentPrice":119880,"totalBillingPeriods":12},"currency":"EUR","environment":"Sandbox","expiresDate":"2025-12-06T05:46:40.999Z","inAppOwnershipType":"FAMILY_SHARED","isUpgraded":true,"offerIdentifier":"spring","offerType":2,"originalApplicationVersion":"1.0","originalPurchaseDate":"2023-11-14T22:13:20.000Z","originalTransactionId":"2000000000000001","price":9990,"productId":"com.example.game.pro.monthly","productType":"Auto-Renewable Subscription","purchaseDate":"2025-11-13T02:13:20.123Z","quantity":2,"revocationDate":"2025-11-24T16:00:00.001Z","revocationReason":1,"signedDate":"2025-11-13T02:13:21.000Z","storefront":"DEU","subscriptionGroupIdentifier":"group-1","transactionId":"2000000000000002","webOrderLineItemId":"web-1"},"verifiedAt":"2025-11-13T02:13:22.345Z"}"#
        )
    }

    @Test func matched() throws {
        try Self.check(
            ContractFixtures.matched,
            #"{"matchedBy":"appAccountToken","orderId":"o-456","schema":"iap.matched.v1","userId":"u-123","verified":{"hints":{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","environment":"Sandbox","eventId":"e-1","orderId":"o-456","userId":"u-123"},"notification":{"notificationType":"DID_RENEW","notificationUUID":"n-1","signedDate":"2025-11-13T02:13:21.500Z","subtype":"BILLING_RECOVERY"},"receivedAt":"2025-11-13T02:13:22.000Z","renewal":{"advancedCommerceInfo":{"consistencyToken":"ct-1","descriptors":{"description":"All the levels","displayName":"Level pass"},"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"priceIncreaseInfo":{"dependentSKUs":["levels.bonus"],"price":10990,"status":"SCHEDULED"}}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2"},"autoRenewProductId":"com.example.game.pro.yearly","autoRenewStatus":1,"commitmentInfo":{"commitmentAutoRenewProductId":"com.example.game.pro.yearly","commitmentAutoRenewStatus":1,"commitmentRenewalBillingPlanType":"MONTHLY","commitmentRenewalDate":"2026-11-13T02:13:20.000Z","commitmentRenewalPrice":119880},"expirationIntent":2,"gracePeriodExpiresDate":"2025-12-12T00:40:00.000Z","isInBillingRetryPeriod":true,"offerIdentifier":"come-back","offerType":4},"schema":"iap.verified.v1","source":"notification","transaction":{"advancedCommerceInfo":{"descriptors":{"description":"All the levels","displayName":"Level pass"},"estimatedTax":1000,"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"refunds":[{"refundAmount":990,"refundDate":"2025-11-20T00:00:00.000Z","refundReason":"UNINTENDED_PURCHASE","refundType":"PRORATED"}],"revocationDate":"2025-11-21T00:00:00.000Z"}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2","taxExclusivePrice":8990,"taxRate":"0.10"},"appAccountToken":"7E3D2A1C-0000-4000-8000-000000000001","bundleId":"com.example.game","commitmentInfo":{"billingPeriodNumber":3,"commitmentExpiresDate":"2026-11-13T02:13:20.000Z","commitmentPrice":119880,"totalBillingPeriods":12},"currency":"EUR","environment":"Sandbox","expiresDate":"2025-12-06T05:46:40.999Z","inAppOwnershipType":"FAMILY_SHARED","isUpgraded":true,"offerIdentifier":"spring","offerType":2,"originalApplicationVersion":"1.0","originalPurchaseDate":"2023-11-14T22:13:20.000Z","originalTransactionId":"2000000000000001","price":9990,"productId":"com.example.game.pro.monthly","productType":"Auto-Renewable Subscription","purchaseDate":"2025-11-13T02:13:20.123Z","quantity":2,"revocationDate":"2025-11-24T16:00:00.001Z","revocationReason":1,"signedDate":"2025-11-13T02:13:21.000Z","storefront":"DEU","subscriptionGroupIdentifier":"group-1","transactionId":"2000000000000002","webOrderLineItemId":"web-1"},"verifiedAt":"2025-11-13T02:13:22.345Z"},"warnings":["order_already_claimed","user_hint_mismatch"]}"#
        )
    }

    @Test func unmatched() throws {
        try Self.check(
            ContractFixtures.unmatched,
            #"{"reason":"no_order_or_user","schema":"iap.unmatched.v1","since":"2025-11-13T02:13:22.400Z","unmatchedAt":"2025-11-14T02:13:22.400Z","verified":{"hints":{"appAccountToken":"7e3d2a1c-0000-4000-8000-000000000001","environment":"Sandbox","eventId":"e-1","orderId":"o-456","userId":"u-123"},"notification":{"notificationType":"DID_RENEW","notificationUUID":"n-1","signedDate":"2025-11-13T02:13:21.500Z","subtype":"BILLING_RECOVERY"},"receivedAt":"2025-11-13T02:13:22.000Z","renewal":{"advancedCommerceInfo":{"consistencyToken":"ct-1","descriptors":{"description":"All the levels","displayName":"Level pass"},"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"priceIncreaseInfo":{"dependentSKUs":["levels.bonus"],"price":10990,"status":"SCHEDULED"}}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2"},"autoRenewProductId":"com.example.game.pro.yearly","autoRenewStatus":1,"commitmentInfo":{"commitmentAutoRenewProductId":"com.example.game.pro.yearly","commitmentAutoRenewStatus":1,"commitmentRenewalBillingPlanType":"MONTHLY","commitmentRenewalDate":"2026-11-13T02:13:20.000Z","commitmentRenewalPrice":119880},"expirationIntent":2,"gracePeriodExpiresDate":"2025-12-12T00:40:00.000Z","isInBillingRetryPeriod":true,"offerIdentifier":"come-back","offerType":4},"schema":"iap.verified.v1","source":"notification","transaction":{"advancedCommerceInfo":{"descriptors":{"description":"All the levels","displayName":"Level pass"},"estimatedTax":1000,"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"refunds":[{"refundAmount":990,"refundDate":"2025-11-20T00:00:00.000Z","refundReason":"UNINTENDED_PURCHASE","refundType":"PRORATED"}],"revocationDate":"2025-11-21T00:00:00.000Z"}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2","taxExclusivePrice":8990,"taxRate":"0.10"},"appAccountToken":"7E3D2A1C-0000-4000-8000-000000000001","bundleId":"com.example.game","commitmentInfo":{"billingPeriodNumber":3,"commitmentExpiresDate":"2026-11-13T02:13:20.000Z","commitmentPrice":119880,"totalBillingPeriods":12},"currency":"EUR","environment":"Sandbox","expiresDate":"2025-12-06T05:46:40.999Z","inAppOwnershipType":"FAMILY_SHARED","isUpgraded":true,"offerIdentifier":"spring","offerType":2,"originalApplicationVersion":"1.0","originalPurchaseDate":"2023-11-14T22:13:20.000Z","originalTransactionId":"2000000000000001","price":9990,"productId":"com.example.game.pro.monthly","productType":"Auto-Renewable Subscription","purchaseDate":"2025-11-13T02:13:20.123Z","quantity":2,"revocationDate":"2025-11-24T16:00:00.001Z","revocationReason":1,"signedDate":"2025-11-13T02:13:21.000Z","storefront":"DEU","subscriptionGroupIdentifier":"group-1","transactionId":"2000000000000002","webOrderLineItemId":"web-1"},"verifiedAt":"2025-11-13T02:13:22.345Z"}}"#
        )
    }

    @Test func entitlement() throws {
        try Self.check(
            ContractFixtures.entitlement,
            #"{"action":"revoke","advancedCommerceInfo":{"descriptors":{"description":"All the levels","displayName":"Level pass"},"estimatedTax":1000,"items":[{"SKU":"levels.all","description":"Every level","displayName":"All levels","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"refunds":[{"refundAmount":990,"refundDate":"2025-11-20T00:00:00.000Z","refundReason":"UNINTENDED_PURCHASE","refundType":"PRORATED"}],"revocationDate":"2025-11-21T00:00:00.000Z"}],"period":"P1M","requestReferenceId":"req-1","taxCode":"C003-00-2","taxExclusivePrice":8990,"taxRate":"0.10"},"autoRenewStatus":0,"bundleId":"com.example.game","commitmentInfo":{"billingPeriodNumber":3,"commitmentExpiresDate":"2026-11-13T02:13:20.000Z","commitmentPrice":119880,"totalBillingPeriods":12},"currency":"EUR","environment":"Sandbox","eventId":"ev-1","expirationIntent":2,"expiresDate":"2025-12-06T05:46:40.999Z","gracePeriodExpiresDate":"2025-12-12T00:40:00.000Z","matchedBy":"orderId","offerIdentifier":"spring","offerType":2,"orderId":"o-456","originalApplicationVersion":"1.0","originalTransactionId":"2000000000000001","price":9990,"productId":"com.example.game.pro.monthly","productType":"Auto-Renewable Subscription","purchaseDate":"2025-11-13T02:13:20.123Z","quantity":2,"revocationDate":"2025-11-24T16:00:00.001Z","revocationReason":1,"schema":"iap.entitlement.v1","sequence":3,"source":"storekit2","status":"gracePeriod","storefront":"DEU","transactionId":"2000000000000002","userId":"u-123","warnings":["order_never_arrived"]}"#
        )
    }

    @Test func entitlementState() throws {
        try Self.check(
            ContractFixtures.state,
            #"{"autoRenewProductId":"com.example.game.pro.yearly","autoRenewStatus":0,"changes":3,"expirationIntent":2,"expiresDate":"2025-12-06T05:46:40.999Z","gracePeriodExpiresDate":"2025-12-12T00:40:00.000Z","orderId":"o-456","originalTransactionId":"2000000000000001","productId":"com.example.game.pro.monthly","productType":"Auto-Renewable Subscription","purchaseDate":"2025-11-13T02:13:20.123Z","revocationReason":0,"revokedTransactionIds":["2000000000000002"],"signedDate":"2025-11-13T02:13:21.000Z","status":"revoked","transactionId":"2000000000000002","userId":"u-123"}"#
        )
    }

    /// Match's bindings on `iap.ownership` (decision D35).
    @Test func ownershipBinding() throws {
        try Self.check(
            OwnershipBinding(originalTransactionId: "2000000000000001", userId: "u-123"),
            #"{"originalTransactionId":"2000000000000001","schema":"iap.ownership.v1","userId":"u-123"}"#
        )
    }

    /// Grant's states on `iap.entitlement-states` (decision D35): the state exactly as Redis holds it.
    @Test func entitlementStateRecord() throws {
        try Self.check(
            EntitlementStateRecord(state: ContractFixtures.state),
            #"{"schema":"iap.entitlement-state.v1","state":{"autoRenewProductId":"com.example.game.pro.yearly","autoRenewStatus":0,"changes":3,"expirationIntent":2,"expiresDate":"2025-12-06T05:46:40.999Z","gracePeriodExpiresDate":"2025-12-12T00:40:00.000Z","orderId":"o-456","originalTransactionId":"2000000000000001","productId":"com.example.game.pro.monthly","productType":"Auto-Renewable Subscription","purchaseDate":"2025-11-13T02:13:20.123Z","revocationReason":0,"revokedTransactionIds":["2000000000000002"],"signedDate":"2025-11-13T02:13:21.000Z","status":"revoked","transactionId":"2000000000000002","userId":"u-123"}}"#
        )
    }
}
