public import AppStoreModels
public import Contracts

/// Which notifications grant publishes as subscription events (D56): the signals a backend's
/// retention and CRM flows act on, whether or not they change access. Access changes of their
/// own (renewals, expiries, refunds) are entitlement events already, so they are not repeated.
public enum SubscriptionSignals {
    public static let types: Set<NotificationTypeV2> = [
        // Auto-renew turned off (AUTO_RENEW_DISABLED) or on (AUTO_RENEW_ENABLED).
        .didChangeRenewalStatus,
        // An upgrade, downgrade or crossgrade, now or at the next renewal.
        .didChangeRenewalPref,
        // A billing issue starting (GRACE_PERIOD when the customer keeps access meanwhile).
        .didFailToRenew,
        // A price increase announced (PENDING) or consented to (ACCEPTED).
        .priceIncrease,
        // A refund requested (Apple asks for consumption data) or declined.
        .consumptionRequest, .refundDeclined,
        // An offer redeemed, by subtype (INITIAL_BUY, RESUBSCRIBE, UPGRADE, DOWNGRADE).
        .offerRedeemed,
    ]

    /// The event for `matched`, nil unless it came in one of ``types``.
    public static func event(for matched: MatchedTransaction) -> SubscriptionEvent? {
        guard let notification = matched.verified.notification, types.contains(notification.notificationType)
        else { return nil }
        let transaction = matched.transaction
        return SubscriptionEvent(
            eventId: BusinessKeys.subscriptionEventId(
                notificationUUID: notification.notificationUUID, transactionId: transaction.transactionId),
            notificationType: notification.notificationType, subtype: notification.subtype,
            notificationUUID: notification.notificationUUID, signedDate: notification.signedDate,
            userId: matched.userId, bundleId: transaction.bundleId, productId: transaction.productId,
            transactionId: transaction.transactionId, originalTransactionId: transaction.originalTransactionId,
            environment: transaction.environment, expiresDate: transaction.expiresDate, matchedBy: matched.matchedBy,
            renewal: matched.verified.renewal)
    }
}
