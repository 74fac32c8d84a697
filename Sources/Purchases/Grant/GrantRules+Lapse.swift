import AppStoreModels
import Contracts

/// A subscription period that ended without a renewal: from EXPIRED, DID_FAIL_TO_RENEW,
/// GRACE_PERIOD_EXPIRED, or a reconcile view of Apple's latest transaction whose period is over.
enum Lapse: Hashable {
    /// Access ends; the status says whether Apple still retries billing.
    case ended(EntitlementStatus)
    /// Billing failed, access is kept until the grace period's end.
    case grace(until: Timestamp)

    init?(of matched: MatchedTransaction) {
        let renewal = matched.verified.renewal
        let grace = renewal?.gracePeriodExpiresDate
        guard let notification = matched.verified.notification else {
            // Reconcile publishes Apple's latest view of a subscription with no notification:
            // a period over at verification is an expiry no notification brought.
            let transaction = matched.transaction
            guard matched.verified.source == .reconcile, transaction.productType == .autoRenewableSubscription,
                let expires = transaction.expiresDate, expires <= matched.verified.verifiedAt
            else { return nil }
            if let grace, grace > matched.verified.verifiedAt {
                self = .grace(until: grace)
            } else {
                self = .ended(renewal?.isInBillingRetryPeriod == true ? .billingRetry : .expired)
            }
            return
        }
        switch notification.notificationType {
        case .expired:
            self = .ended(.expired)
        case .gracePeriodExpired:
            self = .ended(renewal?.isInBillingRetryPeriod == false ? .expired : .billingRetry)
        case .didFailToRenew:
            // Without Apple's grace end the access end is unknown: treated as billing retry.
            if notification.subtype == .gracePeriod, let grace {
                self = .grace(until: grace)
            } else {
                self = .ended(.billingRetry)
            }
        default:
            return nil
        }
    }
}

extension GrantRules {
    static func lapse(_ lapse: Lapse, _ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        guard state.productType == .autoRenewableSubscription || transaction.productType == .autoRenewableSubscription
        else {
            return .recorded(
                builder.advanced(state), "a lapse of a \(transaction.productType?.rawValue ?? "one-time") purchase")
        }
        if let incoming = transaction.expiresDate, let current = state.expiresDate, incoming < current {
            return .ignore(.outOfOrder, "lapse of a period before the current one (\(current))")
        }
        switch lapse {
        case .grace(let until):
            guard state.status == .active || (state.status == .gracePeriod && state.gracePeriodExpiresDate != until)
            else {
                return .ignore(.alreadyApplied, "subscription is \(state.status.rawValue) already")
            }
            var newState = builder.adopted(state, status: .gracePeriod)
            newState.gracePeriodExpiresDate = until
            return GrantDecision(
                changes: [builder.change(.grace, status: .gracePeriod, accessEnd: until)], newState: newState)
        case .ended(let status):
            if state.status.hasAccess {
                return GrantDecision(
                    changes: [builder.change(.expire, status: status)], newState: builder.adopted(state, status: status)
                )
            }
            if state.status == .billingRetry, status == .expired {
                // Billing retry gave up: no access was left to cut.
                return .recorded(builder.adopted(state, status: .expired), "billing retry ended")
            }
            return .ignore(.alreadyApplied, "subscription is \(state.status.rawValue) already")
        }
    }
}
