import AppStore
public import Contracts

/// The grant stage's rules: decides which entitlement changes a matched transaction makes,
/// given what grant already applied for the purchase.
///
/// - One-time purchases (consumable, non-consumable, non-renewing): granted once (quantity,
///   and expiresDate for non-renewing), revoked on refund or family revoke, reinstated on
///   REFUND_REVERSED.
/// - Auto-renewable subscriptions: the first purchase grants, newer periods renew, EXPIRED
///   expires, an upgrade revokes the product upgraded away from (a downgrade expires it).
/// - Apple's deliveries are unordered and repeated: a view signed before the state's latest
///   applied change, or a period older than the current one, changes nothing.
///
/// Two phases (see ``GrantDecision``): ``decide(_:)`` reads, ``commit(_:)`` writes after the
/// changes were published.
public struct GrantRules: Sendable {
    private let store: any EntitlementStateStore

    public init(store: any EntitlementStateStore) {
        self.store = store
    }

    public func decide(_ matched: MatchedTransaction) async throws -> GrantDecision {
        let state = try await self.store.state(originalTransactionId: matched.transaction.originalTransactionId)
        return Self.decide(matched, state: state)
    }

    /// Saves the decision's state. Call after its events were acknowledged by Kafka.
    public func commit(_ decision: GrantDecision) async throws {
        if let state = decision.newState { try await self.store.save(state) }
    }

    /// The decision for `matched` given the purchase's `state` (pure).
    public static func decide(_ matched: MatchedTransaction, state: EntitlementState?) -> GrantDecision {
        let transaction = matched.transaction
        let notificationType = matched.verified.notification?.notificationType
        let revoked = transaction.revocationDate != nil || notificationType == .refund || notificationType == .revoke
        let builder = ChangeBuilder(matched: matched)

        guard let state else {
            return self.firstSighting(builder, revoked: revoked, notificationType: notificationType)
        }

        if let incoming = transaction.signedDate, let applied = state.signedDate, incoming < applied {
            return .ignore(.outOfOrder, "signed \(incoming), before the applied \(applied)")
        }
        if revoked { return self.revoke(builder, state: state) }
        if state.revokedTransactionIds.contains(transaction.transactionId) {
            return self.reinstate(builder, state: state)
        }
        if notificationType == .expired { return self.expire(builder, state: state) }
        // Minimal stand-in (reconcile's sweep, D32) for the lifecycle rule of issue 13 item 2,
        // which supersedes it: an auto-renewable view whose period ended by the time it was
        // verified expires an active entitlement (grace is not known here yet).
        if transaction.productType == .autoRenewableSubscription, state.status == .active,
            let expires = transaction.expiresDate, expires <= matched.verified.verifiedAt
        {
            return self.expire(builder, state: state)
        }
        if transaction.isUpgraded == true { return self.upgradedAway(builder, state: state) }
        if transaction.productType == .autoRenewableSubscription { return self.period(builder, state: state) }
        return .ignore(.alreadyApplied, "transaction \(transaction.transactionId) is \(state.status.rawValue) already")
    }

    // MARK: - Rules

    private static func firstSighting(_ builder: ChangeBuilder, revoked: Bool, notificationType: NotificationTypeV2?)
        -> GrantDecision
    {
        let transaction = builder.transaction
        if revoked {
            var state = builder.newState(status: .revoked)
            state.revokedTransactionIds = [transaction.transactionId]
            return .neverGranted(recording: state, "revoked before it was granted")
        }
        if notificationType == .expired {
            return .neverGranted(recording: builder.newState(status: .expired), "expired before it was granted")
        }
        if transaction.isUpgraded == true {
            return .neverGranted(recording: builder.newState(status: .revoked), "upgraded away before it was granted")
        }
        return GrantDecision(changes: [builder.change(.grant)], newState: builder.newState(status: .active))
    }

    /// Refund or family revoke of one transaction. Revoking an earlier period of a
    /// subscription publishes its revoke but leaves the current period's status alone.
    private static func revoke(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        guard !state.revokedTransactionIds.contains(transaction.transactionId) else {
            return .ignore(.alreadyApplied, "transaction \(transaction.transactionId) is revoked already")
        }
        var newState = builder.advanced(state)
        newState.revokedTransactionIds.append(transaction.transactionId)
        if transaction.transactionId == state.transactionId { newState.status = .revoked }
        return GrantDecision(changes: [builder.change(.revoke)], newState: newState)
    }

    /// REFUND_REVERSED, or a newer signed view without the revocation.
    private static func reinstate(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        var newState = builder.advanced(state)
        newState.revokedTransactionIds.removeAll { $0 == transaction.transactionId }
        if transaction.transactionId == state.transactionId { newState.status = .active }
        return GrantDecision(changes: [builder.change(.reinstate)], newState: newState)
    }

    private static func expire(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        guard state.productType == .autoRenewableSubscription || transaction.productType == .autoRenewableSubscription
        else {
            return .ignore(.noChange, "EXPIRED for a \(transaction.productType?.rawValue ?? "one-time") purchase")
        }
        guard state.status == .active else {
            return .ignore(.alreadyApplied, "subscription is \(state.status.rawValue) already")
        }
        if let incoming = transaction.expiresDate, let current = state.expiresDate, incoming < current {
            return .ignore(.outOfOrder, "expiry of a period before the current one (\(current))")
        }
        var newState = builder.advanced(state)
        newState.status = .expired
        return GrantDecision(changes: [builder.change(.expire)], newState: newState)
    }

    /// Apple re-signs the old transaction of an immediate upgrade with `isUpgraded`; when it
    /// arrives before the new product's transaction, it revokes the old product here.
    private static func upgradedAway(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        guard state.status == .active, state.productId == transaction.productId else {
            return .ignore(.alreadyApplied, "product \(transaction.productId) is no longer the entitled one")
        }
        var newState = builder.advanced(state)
        newState.status = .revoked
        return GrantDecision(changes: [builder.change(.revoke)], newState: newState)
    }

    /// A subscription period: grant, renew, or a product change within the subscription.
    private static func period(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        if let incoming = transaction.expiresDate, let current = state.expiresDate {
            if incoming < current {
                return .ignore(.outOfOrder, "period ending \(incoming) is older than the current one ending \(current)")
            }
            if incoming == current {
                return .ignore(.alreadyApplied, "period ending \(incoming) is applied already")
            }
        } else if transaction.transactionId == state.transactionId {
            return .ignore(.alreadyApplied, "transaction \(transaction.transactionId) is applied already")
        }

        var changes: [EntitlementChange] = []
        if state.status != .active {
            changes.append(builder.change(.grant))
        } else if transaction.productId != state.productId {
            // An upgrade takes effect at once, inside the old period: the old product is
            // revoked. A downgrade or crossgrade starts when the old period ended: it expired.
            let immediate = transaction.purchaseDate.flatMap { start in state.expiresDate.map { start < $0 } } ?? true
            changes.append(builder.previousProductChange(immediate ? .revoke : .expire, state: state))
            changes.append(builder.change(.grant))
        } else {
            changes.append(builder.change(.renew))
        }
        var newState = builder.advanced(state)
        newState.productId = transaction.productId
        newState.productType = transaction.productType
        newState.transactionId = transaction.transactionId
        newState.purchaseDate = transaction.purchaseDate
        newState.expiresDate = transaction.expiresDate
        newState.status = .active
        return GrantDecision(changes: changes, newState: newState)
    }
}

extension GrantDecision {
    static func ignore(_ code: GrantIgnoreReason.Code, _ detail: String) -> GrantDecision {
        GrantDecision(changes: [], newState: nil, ignored: GrantIgnoreReason(code, detail))
    }

    /// Nothing to publish, but the state is recorded so a late grant of the same purchase stays off.
    static func neverGranted(recording state: EntitlementState, _ detail: String) -> GrantDecision {
        GrantDecision(changes: [], newState: state, ignored: GrantIgnoreReason(.neverGranted, detail))
    }
}

/// Builds the events and states of one matched transaction.
private struct ChangeBuilder {
    let matched: MatchedTransaction
    var transaction: TransactionDetails { self.matched.transaction }

    /// A change of this transaction.
    func change(_ effect: EntitlementEffect) -> EntitlementChange {
        let transaction = self.transaction
        return self.make(
            effect,
            key: Self.key(transaction.transactionId, effect, expiresDate: transaction.expiresDate),
            transactionId: transaction.transactionId,
            orderId: self.matched.orderId,
            productId: transaction.productId,
            productType: transaction.productType,
            quantity: transaction.quantity,
            purchaseDate: transaction.purchaseDate,
            expiresDate: transaction.expiresDate,
            revocationDate: transaction.revocationDate
        )
    }

    /// A change of the product the state held before this transaction replaced it; a revoke
    /// is dated at the new product's purchase.
    func previousProductChange(_ effect: EntitlementEffect, state: EntitlementState) -> EntitlementChange {
        self.make(
            effect,
            key: Self.key(state.transactionId, effect, expiresDate: state.expiresDate),
            transactionId: state.transactionId,
            orderId: state.orderId,
            productId: state.productId,
            productType: state.productType,
            quantity: 1,
            purchaseDate: state.purchaseDate,
            expiresDate: state.expiresDate,
            revocationDate: effect == .revoke ? self.transaction.purchaseDate : nil
        )
    }

    /// The state of a purchase first seen with this transaction.
    func newState(status: EntitlementState.Status) -> EntitlementState {
        let transaction = self.transaction
        return EntitlementState(
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
    }

    /// `state` with this transaction's signing date applied.
    func advanced(_ state: EntitlementState) -> EntitlementState {
        var state = state
        if let signed = self.transaction.signedDate, state.signedDate.map({ signed > $0 }) ?? true {
            state.signedDate = signed
        }
        if state.orderId == nil { state.orderId = self.matched.orderId }
        return state
    }

    /// ``BusinessKeys/effectKey(transactionId:effect:periodEnd:)``.
    private static func key(_ transactionId: String, _ effect: EntitlementEffect, expiresDate: Timestamp?) -> String {
        BusinessKeys.effectKey(transactionId: transactionId, effect: effect, periodEnd: expiresDate)
    }

    private func make(
        _ effect: EntitlementEffect,
        key: String,
        transactionId: String,
        orderId: String?,
        productId: String,
        productType: ProductType?,
        quantity: Int,
        purchaseDate: Timestamp?,
        expiresDate: Timestamp?,
        revocationDate: Timestamp?
    ) -> EntitlementChange {
        let transaction = self.transaction
        let event = EntitlementEvent(
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
            source: self.matched.verified.source
        )
        return EntitlementChange(effect: effect, idempotencyKey: key, event: event)
    }
}
