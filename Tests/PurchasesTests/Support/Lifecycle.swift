import AppStoreModels
import Contracts
import Purchases

/// A subscription (originalTransactionId 100, `pro_monthly`, 30-day periods) in the states and
/// views the lifecycle tests start from.
enum Lifecycle {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_763_000_000_000
    static func at(_ offset: Int64) -> Timestamp { Timestamp(millisecondsSince1970: start + offset) }
    /// The grace period's end in the renewal info of the tests.
    static let graceEnd = at(46 * day)

    /// Grant's state before the notification.
    enum Prior: String, Sendable {
        case none, active, gracePeriod, billingRetry, expired, revoked, consumable

        var state: EntitlementState? {
            var state = EntitlementState(
                originalTransactionId: "100", userId: "u-1", orderId: nil, productId: "pro_monthly",
                productType: .autoRenewableSubscription, transactionId: "101", purchaseDate: at(0),
                expiresDate: at(30 * day), status: .active, signedDate: at(1000), autoRenewStatus: .on
            )
            switch self {
            case .none: return nil
            case .active: break
            case .gracePeriod:
                state.status = .gracePeriod
                state.gracePeriodExpiresDate = graceEnd
            case .billingRetry: state.status = .billingRetry
            case .expired: state.status = .expired
            case .revoked:
                state.status = .revoked
                state.revokedTransactionIds = ["101"]
            case .consumable:
                state.productId = "gems_100"
                state.productType = .consumable
                state.expiresDate = nil
                state.autoRenewStatus = nil
            }
            return state
        }
    }

    /// The signed transaction the notification carries.
    enum View: String, Sendable {
        /// The current period's transaction, re-signed after its period ended.
        case current
        /// The next period (a renewal).
        case next
        /// A higher tier bought inside the current period.
        case upgrade
        /// A new purchase after the subscription ended.
        case resubscribe
        /// The current period's end moved by a renewal date extension.
        case extended
        /// The current transaction refunded.
        case refunded
        /// The current transaction, refund reversed.
        case reversed
        /// A consumable.
        case consumable

        var transaction: TransactionDetails {
            func subscription(
                _ id: String, product: String = "pro_monthly", purchase: Int64, expires: Int64, signed: Int64
            ) -> TransactionDetails {
                TransactionDetails(
                    transactionId: id, originalTransactionId: "100", bundleId: TestApple.bundleId, productId: product,
                    productType: .autoRenewableSubscription, environment: .sandbox, purchaseDate: at(purchase),
                    expiresDate: at(expires), signedDate: at(signed), price: 4_990, currency: "EUR", storefront: "DEU"
                )
            }
            switch self {
            case .current: return subscription("101", purchase: 0, expires: 30 * day, signed: 31 * day)
            case .next: return subscription("102", purchase: 30 * day, expires: 60 * day, signed: 30 * day + 1000)
            case .upgrade:
                return subscription(
                    "102", product: "premium_monthly", purchase: 10 * day, expires: 40 * day, signed: 10 * day + 1000)
            case .resubscribe:
                return subscription("103", purchase: 70 * day, expires: 100 * day, signed: 70 * day + 1000)
            case .extended: return subscription("101", purchase: 0, expires: 37 * day, signed: 20 * day)
            case .refunded:
                var refunded = subscription("101", purchase: 0, expires: 30 * day, signed: 6 * day)
                refunded.revocationDate = at(5 * day)
                refunded.revocationReason = .refundedDueToIssue
                return refunded
            case .reversed: return subscription("101", purchase: 0, expires: 30 * day, signed: 40 * day)
            case .consumable:
                return TransactionDetails(
                    transactionId: "101", originalTransactionId: "100", bundleId: TestApple.bundleId,
                    productId: "gems_100", productType: .consumable, environment: .sandbox, purchaseDate: at(0),
                    signedDate: at(31 * day)
                )
            }
        }
    }

    static func matched(
        _ view: View, _ type: NotificationTypeV2?, _ subtype: NotificationSubtype? = nil,
        renewal: RenewalDetails? = nil, uuid: String? = nil
    ) -> MatchedTransaction {
        var verified = Records.verified(view.transaction, notification: type, subtype: subtype, uuid: uuid)
        verified.renewal = renewal
        return Records.matched(verified)
    }
}
