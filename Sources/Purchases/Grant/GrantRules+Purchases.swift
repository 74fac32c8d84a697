import Contracts

/// Grants, renewals, product changes and revocations.
extension GrantRules {
    static func firstSighting(_ builder: ChangeBuilder, revoked: Bool, lapse: Lapse?) -> GrantDecision {
        let transaction = builder.transaction
        if revoked {
            var state = builder.newState(status: .revoked)
            state.revokedTransactionIds = [transaction.transactionId]
            return .neverGranted(recording: state, "revoked before it was granted")
        }
        if transaction.isUpgraded == true {
            return .neverGranted(recording: builder.newState(status: .revoked), "upgraded away before it was granted")
        }
        switch lapse {
        case .ended(let status):
            return .neverGranted(
                recording: builder.newState(status: status), "\(status.rawValue) before it was granted")
        case .grace(let until):
            var state = builder.newState(status: .gracePeriod)
            state.gracePeriodExpiresDate = until
            return GrantDecision(
                changes: [builder.change(.grant, status: .gracePeriod, accessEnd: until)], newState: state)
        case nil:
            return GrantDecision(
                changes: [builder.change(.grant, status: .active)], newState: builder.newState(status: .active))
        }
    }

    /// Refund or family revoke of one transaction. Revoking an earlier period of a
    /// subscription publishes its revoke but leaves the current period's status alone.
    static func revoke(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        guard !state.revokedTransactionIds.contains(transaction.transactionId) else {
            return .ignore(.alreadyApplied, "transaction \(transaction.transactionId) is revoked already")
        }
        var newState = builder.advanced(state)
        newState.revokedTransactionIds.append(transaction.transactionId)
        let current = transaction.transactionId == state.transactionId
        if current {
            newState.status = .revoked
            newState.revocationReason = transaction.revocationReason
            newState.gracePeriodExpiresDate = nil
        }
        return GrantDecision(
            changes: [builder.change(.revoke, status: current ? .revoked : state.status)], newState: newState)
    }

    /// REFUND_REVERSED, or a newer signed view without the revocation.
    static func reinstate(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        var newState = builder.advanced(state)
        newState.revokedTransactionIds.removeAll { $0 == transaction.transactionId }
        if transaction.transactionId == state.transactionId {
            newState.status = .active
            newState.revocationReason = nil
        }
        return GrantDecision(changes: [builder.change(.reinstate, status: newState.status)], newState: newState)
    }

    /// Apple re-signs the old transaction of an immediate upgrade with `isUpgraded`; when it
    /// arrives before the new product's transaction, it revokes the old product here.
    static func upgradedAway(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        guard state.status.hasAccess, state.productId == transaction.productId else {
            return .ignore(.alreadyApplied, "product \(transaction.productId) is no longer the entitled one")
        }
        var newState = builder.advanced(state)
        newState.status = .revoked
        return GrantDecision(changes: [builder.change(.revoke, status: .revoked)], newState: newState)
    }

    /// A subscription period: grant, renew, or a product change within the subscription group
    /// (the same originalTransactionId, so one entitlement: the old product's ends as the new
    /// one's starts).
    static func period(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
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
        if !state.status.hasAccess {
            // After an expiry, a revocation or a billing retry that cut access (a recovery).
            changes.append(builder.change(.grant, status: .active))
        } else if transaction.productId != state.productId {
            // An upgrade takes effect at once, inside the old period: the old product is
            // revoked. A downgrade or crossgrade starts when the old period ended: it expired.
            let immediate = transaction.purchaseDate.flatMap { start in state.expiresDate.map { start < $0 } } ?? true
            changes.append(builder.previousProductChange(immediate ? .revoke : .expire, state: state))
            changes.append(builder.change(.grant, status: .active))
        } else {
            // A renewal, also one recovering from a grace period.
            changes.append(builder.change(.renew, status: .active))
        }
        return GrantDecision(changes: changes, newState: builder.adopted(state, status: .active))
    }
}
