import AppStoreModels
import Contracts

/// Builds the events and states of one matched transaction, given the purchase's state
/// before it (nil on a first sighting).
struct ChangeBuilder {
    let matched: MatchedTransaction
    let state: EntitlementState?

    var transaction: TransactionDetails { self.matched.transaction }
    var renewal: RenewalDetails? { self.matched.verified.renewal }
    var notification: NotificationContext? { self.matched.verified.notification }

    /// A change of this transaction. `status` is the purchase's state after it; `accessEnd`
    /// replaces the period end for a grace period.
    func change(_ effect: EntitlementEffect, status: EntitlementStatus, accessEnd: Timestamp? = nil)
        -> EntitlementChange
    {
        let transaction = self.transaction
        let expiresDate = accessEnd ?? transaction.expiresDate
        let lapsed = effect == .expire || effect == .grace
        let key = BusinessKeys.effectKey(
            transactionId: transaction.transactionId, effect: effect, date: self.date(of: effect, expiresDate))
        var event = self.event(
            effect,
            key: key,
            transactionId: transaction.transactionId,
            orderId: self.matched.orderId,
            productId: transaction.productId,
            productType: transaction.productType,
            quantity: transaction.quantity,
            purchaseDate: transaction.purchaseDate,
            expiresDate: expiresDate,
            revocationDate: transaction.revocationDate,
            status: status
        )
        event.gracePeriodExpiresDate = effect == .grace ? accessEnd : nil
        event.expirationIntent = lapsed ? self.renewal?.expirationIntent ?? self.state?.expirationIntent : nil
        event.revocationReason = effect == .revoke ? transaction.revocationReason : nil
        event.offerType = transaction.offerType
        event.offerIdentifier = transaction.offerIdentifier
        event.price = transaction.price
        event.currency = transaction.currency
        event.storefront = transaction.storefront
        event.originalApplicationVersion = transaction.originalApplicationVersion
        event.commitmentInfo = transaction.commitmentInfo
        event.advancedCommerceInfo = transaction.advancedCommerceInfo
        return EntitlementChange(effect: effect, idempotencyKey: key, event: event)
    }

    /// A change of the product the state held before this transaction replaced it; a revoke
    /// is dated at the new product's purchase. Grant keeps no price or offer of the old
    /// transaction, so those fields are null.
    func previousProductChange(_ effect: EntitlementEffect, state: EntitlementState) -> EntitlementChange {
        let revocationDate = effect == .revoke ? self.transaction.purchaseDate : nil
        let key = BusinessKeys.effectKey(transactionId: state.transactionId, effect: effect, date: revocationDate)
        let event = self.event(
            effect,
            key: key,
            transactionId: state.transactionId,
            orderId: state.orderId,
            productId: state.productId,
            productType: state.productType,
            quantity: 1,
            purchaseDate: state.purchaseDate,
            expiresDate: state.expiresDate,
            revocationDate: revocationDate,
            status: effect == .revoke ? .revoked : .expired
        )
        return EntitlementChange(effect: effect, idempotencyKey: key, event: event)
    }

    /// The state of a purchase first seen with this transaction.
    func newState(status: EntitlementStatus) -> EntitlementState {
        let transaction = self.transaction
        var state = EntitlementState(
            originalTransactionId: transaction.originalTransactionId,
            userId: self.matched.userId,
            orderId: self.matched.orderId,
            productId: transaction.productId,
            productType: transaction.productType,
            transactionId: transaction.transactionId,
            purchaseDate: transaction.purchaseDate,
            expiresDate: transaction.expiresDate,
            status: status,
            signedDate: transaction.signedDate
        )
        self.applyRenewal(to: &state)
        if status == .revoked { state.revocationReason = transaction.revocationReason }
        return state
    }

    /// `state` with this transaction's signing date and renewal info applied.
    func advanced(_ state: EntitlementState) -> EntitlementState {
        var state = state
        if let signed = self.transaction.signedDate, state.signedDate.map({ signed > $0 }) ?? true {
            state.signedDate = signed
        }
        if state.orderId == nil { state.orderId = self.matched.orderId }
        self.applyRenewal(to: &state)
        return state
    }

    /// `state` advanced and now on this transaction's period (product, transaction, dates).
    func adopted(_ state: EntitlementState, status: EntitlementStatus) -> EntitlementState {
        let transaction = self.transaction
        var state = self.advanced(state)
        state.productId = transaction.productId
        state.productType = transaction.productType
        state.transactionId = transaction.transactionId
        state.purchaseDate = transaction.purchaseDate
        state.expiresDate = transaction.expiresDate
        state.status = status
        if status != .gracePeriod { state.gracePeriodExpiresDate = nil }
        if status.hasAccess { state.expirationIntent = nil }
        return state
    }

    private func applyRenewal(to state: inout EntitlementState) {
        guard let renewal = self.renewal else { return }
        state.autoRenewStatus = renewal.autoRenewStatus ?? state.autoRenewStatus
        state.autoRenewProductId = renewal.autoRenewProductId ?? state.autoRenewProductId
        state.expirationIntent = renewal.expirationIntent ?? state.expirationIntent
    }

    /// Apple's date of the change, named in its key (``BusinessKeys/effectKey(transactionId:effect:date:)``).
    private func date(of effect: EntitlementEffect, _ accessEnd: Timestamp?) -> Timestamp? {
        switch effect {
        case .renew, .grace: accessEnd
        case .revoke: self.transaction.revocationDate ?? self.transaction.signedDate
        case .reinstate: self.transaction.signedDate ?? self.notification?.signedDate
        default: nil
        }
    }

    private func event(
        _ effect: EntitlementEffect,
        key: String,
        transactionId: String,
        orderId: String?,
        productId: String,
        productType: ProductType?,
        quantity: Int,
        purchaseDate: Timestamp?,
        expiresDate: Timestamp?,
        revocationDate: Timestamp?,
        status: EntitlementStatus
    ) -> EntitlementEvent {
        let transaction = self.transaction
        return EntitlementEvent(
            eventId: BusinessKeys.entitlementEventId(effectKey: key),
            action: effect.action,
            userId: self.matched.userId,
            orderId: orderId,
            bundleId: transaction.bundleId,
            productId: productId,
            productType: productType,
            quantity: quantity,
            transactionId: transactionId,
            originalTransactionId: transaction.originalTransactionId,
            environment: transaction.environment,
            purchaseDate: purchaseDate,
            expiresDate: expiresDate,
            revocationDate: revocationDate,
            matchedBy: self.matched.matchedBy,
            warnings: self.matched.warnings,
            source: self.matched.verified.source,
            status: status,
            autoRenewStatus: self.renewal?.autoRenewStatus ?? self.state?.autoRenewStatus
        )
    }
}
