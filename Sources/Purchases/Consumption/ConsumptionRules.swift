import AppStore
import AppStoreModels
public import Contracts
public import Foundation

/// Builds the answer to a `CONSUMPTION_REQUEST` from grant's state of the purchase (pure).
///
/// - delivered: grant granted the transaction and it is not revoked (`DELIVERED`); otherwise
///   `UNDELIVERED_OTHER`, the only undelivered reason the pipeline can stand behind.
/// - consumed: Apple computes it for auto-renewable subscriptions (no percentage, as Apple
///   requires); a delivered consumable counts as consumed (100000 milliunits) unless configured
///   otherwise; an undelivered one-time purchase is 0; other delivered products leave it out.
/// - refundPreference: the configured one, except `GRANT_PRORATED` where Apple would refuse it
///   (a one-time purchase without a positive percentage).
public enum ConsumptionRules {
    /// `consumptionPercentage` of a fully consumed purchase (milliunits).
    public static let fullyConsumed: Int32 = 100_000

    public static func plan(
        _ matched: MatchedTransaction,
        state: EntitlementState?,
        configuration: ConsumptionConfiguration,
        now: Date
    ) -> ConsumptionPlan {
        let transaction = matched.transaction
        guard configuration.customerConsented else {
            return .skip(.init(.noConsent, "IAP_CONSUMPTION_CUSTOMER_CONSENTED is false"))
        }
        guard transaction.environment == .production || transaction.environment == .sandbox else {
            return .skip(.init(.notApple, "a \(transaction.environment) transaction"))
        }
        let requestedAt = matched.verified.notification?.signedDate ?? matched.verified.receivedAt
        let age = Duration.milliseconds(Timestamp(now).millisecondsSince1970 - requestedAt.millisecondsSince1970)
        guard age <= configuration.answerWindow else {
            return .skip(.init(.windowClosed, "requested \(requestedAt), \(age) ago"))
        }
        guard let state else {
            return .skip(.init(.unknownPurchase, "no grant state for \(transaction.originalTransactionId)"))
        }

        let revoked =
            state.revokedTransactionIds.contains(transaction.transactionId)
            || (state.status == .revoked && state.transactionId == transaction.transactionId)
        let productType = transaction.productType ?? state.productType
        let percentage = self.percentage(productType, delivered: !revoked, configuration: configuration)
        var preference = configuration.refundPreference
        if preference == .grantProrated, productType != .autoRenewableSubscription, (percentage ?? 0) <= 0 {
            preference = nil
        }
        let request = ConsumptionRequest(
            customerConsented: true,
            sampleContentProvided: configuration.sampleContentProvided,
            deliveryStatus: revoked ? .undeliveredOther : .delivered,
            consumptionPercentage: percentage,
            refundPreference: preference
        )
        return .send(request, transactionId: transaction.transactionId, environment: transaction.environment)
    }

    private static func percentage(
        _ productType: ProductType?, delivered: Bool, configuration: ConsumptionConfiguration
    ) -> Int32? {
        switch productType {
        case .autoRenewableSubscription?, nil: return nil
        case _ where !delivered: return 0
        case .consumable?: return configuration.consumablesCountAsConsumed ? Self.fullyConsumed : nil
        default: return nil
        }
    }
}
