import AppStoreModels
import Contracts
import Purchases
import Testing

/// Which notifications grant publishes as subscription events (D56), and with what.
@Suite struct SubscriptionSignalsTests {
    static func matched(_ type: NotificationTypeV2?, subtype: NotificationSubtype? = nil, uuid: String = "n-1")
        -> MatchedTransaction
    {
        let transaction = TransactionDetails(
            transactionId: "20", originalTransactionId: "10", bundleId: "com.example.game", productId: "vip_monthly",
            productType: .autoRenewableSubscription, environment: .production)
        var verified = VerifiedTransaction(
            transaction: transaction, hints: PublisherHints(eventId: "e-1"), source: .notification,
            receivedAt: Timestamp(millisecondsSince1970: 1), verifiedAt: Timestamp(millisecondsSince1970: 2))
        verified.notification = type.map {
            NotificationContext(notificationType: $0, subtype: subtype, notificationUUID: uuid)
        }
        verified.renewal = RenewalDetails(autoRenewStatus: .off)
        return MatchedTransaction(verified: verified, userId: "u-1", orderId: nil, matchedBy: .ownership)
    }

    @Test func aSignalCarriesTheNotificationTheUserAndTheRenewalInfo() throws {
        let event = try #require(
            SubscriptionSignals.event(for: Self.matched(.didChangeRenewalStatus, subtype: .autoRenewDisabled)))
        #expect(event.notificationType == .didChangeRenewalStatus && event.subtype == .autoRenewDisabled)
        #expect(event.userId == "u-1" && event.originalTransactionId == "10" && event.autoRenewStatus == .off)
        #expect(event.eventId == BusinessKeys.subscriptionEventId(notificationUUID: "n-1", transactionId: "20"))
        let again = try #require(
            SubscriptionSignals.event(for: Self.matched(.didChangeRenewalStatus, subtype: .autoRenewDisabled)))
        #expect(again.eventId == event.eventId, "Apple's retry of the same notification: the same id")
        let other = try #require(SubscriptionSignals.event(for: Self.matched(.didChangeRenewalStatus, uuid: "n-2")))
        #expect(other.eventId != event.eventId)
    }

    @Test func accessChangesAndPurchaseEventsAreNotSignals() {
        for type in [NotificationTypeV2.didRenew, .expired, .refund, .subscribed, .gracePeriodExpired, .revoke] {
            #expect(SubscriptionSignals.event(for: Self.matched(type)) == nil, "\(type.rawValue)")
        }
        #expect(SubscriptionSignals.event(for: Self.matched(nil)) == nil, "a purchase event is no notification")
    }
}
