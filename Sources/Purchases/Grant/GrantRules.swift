import AppStoreModels
public import Contracts

/// The grant stage's rules: decides which entitlement changes a matched transaction makes,
/// given what grant already applied for the purchase (one state per originalTransactionId,
/// which is one per subscription group: see ``EntitlementState``).
///
/// - One-time purchases (consumable, non-consumable, non-renewing): granted once (quantity,
///   and expiresDate for non-renewing), revoked on refund or family revoke, reinstated on
///   REFUND_REVERSED.
/// - Auto-renewable subscriptions: the first purchase grants, newer periods renew, an upgrade
///   revokes the product upgraded away from (a downgrade expires it). A failed renewal with a
///   grace period keeps access until its end (`renew`, status `gracePeriod`); without one, or
///   when the grace period ends, access is cut (`expire`, status `billingRetry`); EXPIRED
///   expires. A reconcile view whose period ended expires with no notification.
/// - Notifications that change no access (renewal status and preference, price increase,
///   refund declined, consumption request…) are recorded in the state, not published (D31).
/// - Apple's deliveries are unordered and repeated: a view signed before the state's latest
///   applied change, or a period older than the current one, changes nothing.
///
/// The table of every notification type and its effect: docs/events.md, "Grant rules".
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
    ///
    /// Numbers its changes here, in one place, after the rules (decision D48): each event's
    /// `sequence` continues the purchase's count in the state, and the new state counts them, so
    /// consumers can order a purchase's changes that dates cannot order. The same state gives the
    /// same numbers, so a redelivery decided again before its commit republishes them unchanged.
    public static func decide(_ matched: MatchedTransaction, state: EntitlementState?) -> GrantDecision {
        var decision = self.rule(matched, state: state)
        let published = state?.changes ?? 0
        for index in decision.changes.indices {
            decision.changes[index].event.sequence = published + index + 1
        }
        decision.newState?.changes = published + decision.changes.count
        return decision
    }

    /// Which rule applies. Every rule that publishes changes returns the state to save with them,
    /// which carries the count on.
    private static func rule(_ matched: MatchedTransaction, state: EntitlementState?) -> GrantDecision {
        let transaction = matched.transaction
        let notificationType = matched.verified.notification?.notificationType
        let revoked = transaction.revocationDate != nil || notificationType == .refund || notificationType == .revoke
        let builder = ChangeBuilder(matched: matched, state: state)
        let lapse = Lapse(of: matched)

        guard let state else {
            return self.firstSighting(builder, revoked: revoked, lapse: lapse)
        }
        if let incoming = transaction.signedDate, let applied = state.signedDate, incoming < applied {
            return .ignore(.outOfOrder, "signed \(incoming), before the applied \(applied)")
        }
        if revoked { return self.revoke(builder, state: state) }
        if state.revokedTransactionIds.contains(transaction.transactionId) {
            return self.reinstate(builder, state: state)
        }
        if let lapse { return self.lapse(lapse, builder, state: state) }

        let decision = self.view(builder, state: state)
        guard let notificationType, Self.recordedTypes.contains(notificationType), decision.changes.isEmpty,
            decision.ignored?.code != .outOfOrder
        else { return decision }
        return .recorded(builder.advanced(state), "\(notificationType.rawValue) changes no access")
    }

    /// What the signed view itself says, whatever notification (if any) it came with.
    private static func view(_ builder: ChangeBuilder, state: EntitlementState) -> GrantDecision {
        let transaction = builder.transaction
        if transaction.isUpgraded == true { return self.upgradedAway(builder, state: state) }
        if transaction.productType == .autoRenewableSubscription { return self.period(builder, state: state) }
        return .ignore(.alreadyApplied, "transaction \(transaction.transactionId) is \(state.status.rawValue) already")
    }

    /// Notifications that change no access unless their signed view shows a change grant
    /// missed (a newer period, an upgrade): their renewal info is recorded in the state, and
    /// nothing is published (decision D31).
    static let recordedTypes: Set<NotificationTypeV2> = [
        .didChangeRenewalStatus, .didChangeRenewalPref, .offerRedeemed, .priceIncrease, .refundDeclined,
        .consumptionRequest, .renewalExtension, .priceChange, .metadataUpdate, .migration, .test,
        .externalPurchaseToken, .rescindConsent,
    ]
}

extension GrantDecision {
    static func ignore(_ code: GrantIgnoreReason.Code, _ detail: String) -> GrantDecision {
        GrantDecision(changes: [], newState: nil, ignored: GrantIgnoreReason(code, detail))
    }

    /// Nothing to publish, but the state is recorded so a late grant of the same purchase stays off.
    static func neverGranted(recording state: EntitlementState, _ detail: String) -> GrantDecision {
        GrantDecision(changes: [], newState: state, ignored: GrantIgnoreReason(.neverGranted, detail))
    }

    /// Nothing to publish; the state records what the notification said (renewal info, billing state).
    static func recorded(_ state: EntitlementState, _ detail: String) -> GrantDecision {
        GrantDecision(changes: [], newState: state, ignored: GrantIgnoreReason(.noChange, detail))
    }
}
