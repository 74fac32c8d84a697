import AppStoreModels
import Contracts
import Purchases
import Testing

/// One row of docs/events.md's notification table: a notification arriving for a purchase in
/// a given state, and what grant does with it.
struct LifecycleRow: Sendable, CustomTestStringConvertible {
    var type: NotificationTypeV2
    var subtype: NotificationSubtype?
    var prior: Lifecycle.Prior
    var view: Lifecycle.View
    var renewal: RenewalDetails?
    /// The actions published, in order.
    var actions: [EntitlementAction]
    /// The purchase's status afterwards (and the `status` of the last event).
    var status: EntitlementStatus
    /// Why nothing was published, for rows without actions.
    var ignored: GrantIgnoreReason.Code?

    var testDescription: String {
        "\(self.type.rawValue)\(self.subtype.map { " \($0.rawValue)" } ?? "") on \(self.prior.rawValue)"
    }
}

/// Every App Store Server Notification V2 type and subtype that carries a transaction has a
/// defined effect (docs/events.md, "Grant rules"); the ones that carry none are skipped by
/// verify (``VerifyLocalTests``).
@Suite(.timeLimit(.minutes(2))) struct GrantLifecycleTests {
    typealias Row = LifecycleRow
    static let day = Lifecycle.day

    static let retry = RenewalDetails(
        autoRenewStatus: .on, expirationIntent: .billingError, isInBillingRetryPeriod: true)
    static let grace = RenewalDetails(
        autoRenewStatus: .on, expirationIntent: .billingError, isInBillingRetryPeriod: true,
        gracePeriodExpiresDate: Lifecycle.graceEnd)
    static func intent(_ intent: ExpirationIntent) -> RenewalDetails {
        RenewalDetails(autoRenewStatus: .off, expirationIntent: intent)
    }

    static let rows: [Row] = [
        Row(type: .subscribed, subtype: .initialBuy, prior: .none, view: .current, actions: [.grant], status: .active),
        Row(
            type: .subscribed, subtype: .resubscribe, prior: .expired, view: .resubscribe, actions: [.grant],
            status: .active),
        Row(type: .didRenew, prior: .active, view: .next, actions: [.renew], status: .active),
        Row(
            type: .didRenew, subtype: .billingRecovery, prior: .billingRetry, view: .next, actions: [.grant],
            status: .active),
        Row(
            type: .didRenew, subtype: .billingRecovery, prior: .gracePeriod, view: .next, actions: [.renew],
            status: .active),
        Row(
            type: .didFailToRenew, prior: .active, view: .current, renewal: retry, actions: [.expire],
            status: .billingRetry),
        Row(
            type: .didFailToRenew, subtype: .gracePeriod, prior: .active, view: .current, renewal: grace,
            actions: [.renew], status: .gracePeriod),
        Row(
            type: .gracePeriodExpired, prior: .gracePeriod, view: .current, renewal: retry, actions: [.expire],
            status: .billingRetry),
        Row(
            type: .expired, subtype: .voluntary, prior: .active, view: .current, renewal: intent(.customerCancelled),
            actions: [.expire], status: .expired),
        Row(
            type: .expired, prior: .active, view: .current, renewal: intent(.other), actions: [.expire],
            status: .expired),
        Row(
            type: .expired, subtype: .billingRetry, prior: .billingRetry, view: .current,
            renewal: intent(.billingError),
            actions: [], status: .expired, ignored: .noChange),
        Row(
            type: .expired, subtype: .billingRetry, prior: .gracePeriod, view: .current, renewal: intent(.billingError),
            actions: [.expire], status: .expired),
        Row(
            type: .expired, subtype: .priceIncrease, prior: .active, view: .current,
            renewal: intent(.customerDidNotConsentToPriceIncrease), actions: [.expire], status: .expired),
        Row(
            type: .expired, subtype: .productNotForSale, prior: .active, view: .current,
            renewal: intent(.productNotAvailable), actions: [.expire], status: .expired),
        Row(
            type: .didChangeRenewalStatus, subtype: .autoRenewDisabled, prior: .active, view: .current,
            renewal: RenewalDetails(autoRenewStatus: .off), actions: [], status: .active, ignored: .noChange),
        Row(
            type: .didChangeRenewalStatus, subtype: .autoRenewEnabled, prior: .active, view: .current,
            renewal: RenewalDetails(autoRenewStatus: .on), actions: [], status: .active, ignored: .noChange),
        Row(
            type: .didChangeRenewalPref, subtype: .upgrade, prior: .active, view: .upgrade, actions: [.revoke, .grant],
            status: .active),
        Row(
            type: .didChangeRenewalPref, subtype: .downgrade, prior: .active, view: .current,
            renewal: RenewalDetails(autoRenewProductId: "basic_monthly", autoRenewStatus: .on), actions: [],
            status: .active, ignored: .noChange),
        Row(
            type: .didChangeRenewalPref, prior: .active, view: .current, actions: [], status: .active,
            ignored: .noChange),
        // A crossgrade that takes effect at once carries the new product's transaction.
        Row(type: .didChangeRenewalPref, prior: .active, view: .upgrade, actions: [.revoke, .grant], status: .active),
        Row(
            type: .offerRedeemed, subtype: .initialBuy, prior: .none, view: .current, actions: [.grant], status: .active
        ),
        Row(
            type: .offerRedeemed, subtype: .resubscribe, prior: .expired, view: .resubscribe, actions: [.grant],
            status: .active),
        Row(
            type: .offerRedeemed, subtype: .upgrade, prior: .active, view: .upgrade, actions: [.revoke, .grant],
            status: .active),
        Row(
            type: .offerRedeemed, subtype: .downgrade, prior: .active, view: .current, actions: [], status: .active,
            ignored: .noChange),
        Row(type: .offerRedeemed, prior: .active, view: .current, actions: [], status: .active, ignored: .noChange),
        Row(
            type: .priceIncrease, subtype: .pending, prior: .active, view: .current, actions: [], status: .active,
            ignored: .noChange),
        Row(
            type: .priceIncrease, subtype: .accepted, prior: .active, view: .current, actions: [], status: .active,
            ignored: .noChange),
        Row(type: .renewalExtended, prior: .active, view: .extended, actions: [.renew], status: .active),
        Row(
            type: .renewalExtension, subtype: .failure, prior: .active, view: .current, actions: [], status: .active,
            ignored: .noChange),
        Row(type: .refund, prior: .active, view: .refunded, actions: [.revoke], status: .revoked),
        Row(type: .refundDeclined, prior: .active, view: .current, actions: [], status: .active, ignored: .noChange),
        Row(type: .refundReversed, prior: .revoked, view: .reversed, actions: [.grant], status: .active),
        Row(type: .revoke, prior: .consumable, view: .consumable, actions: [.revoke], status: .revoked),
        Row(
            type: .consumptionRequest, prior: .consumable, view: .consumable, actions: [], status: .active,
            ignored: .noChange),
        Row(type: .oneTimeCharge, prior: .none, view: .consumable, actions: [.grant], status: .active),
        Row(type: .metadataUpdate, prior: .active, view: .current, actions: [], status: .active, ignored: .noChange),
        Row(type: .migration, prior: .active, view: .current, actions: [], status: .active, ignored: .noChange),
        Row(type: .priceChange, prior: .active, view: .current, actions: [], status: .active, ignored: .noChange),
    ]

    @Test(arguments: Self.rows) func notificationHasItsDefinedEffect(_ row: Row) throws {
        let matched = Lifecycle.matched(row.view, row.type, row.subtype, renewal: row.renewal)
        let decision = GrantRules.decide(matched, state: row.prior.state)
        #expect(decision.events.map(\.action) == row.actions)
        #expect(decision.ignored?.code == row.ignored)
        let state = try #require(decision.newState, "every row changes or records the state")
        #expect(state.status == row.status)
        #expect(state.originalTransactionId == "100")
        if let last = decision.events.last {
            #expect(last.status == row.status)
            #expect(last.userId == "u-1")
        }
        // What the renewal info said is kept for later events.
        if let autoRenew = row.renewal?.autoRenewStatus { #expect(state.autoRenewStatus == autoRenew) }
        if let product = row.renewal?.autoRenewProductId { #expect(state.autoRenewProductId == product) }
    }

    /// The table names every type the models know.
    @Test func everyNotificationTypeHasARow() {
        let covered = Set(Self.rows.map(\.type)).union(VerifyLocalTests.withoutTransaction.map(\.type))
        let known: Set<NotificationTypeV2> = [
            .subscribed, .didChangeRenewalPref, .didChangeRenewalStatus, .offerRedeemed, .didRenew, .expired,
            .didFailToRenew, .gracePeriodExpired, .priceIncrease, .refund, .refundDeclined, .consumptionRequest,
            .renewalExtended, .revoke, .test, .renewalExtension, .refundReversed, .externalPurchaseToken,
            .oneTimeCharge, .rescindConsent, .metadataUpdate, .migration, .priceChange,
        ]
        #expect(known.subtracting(covered).isEmpty, "no row for \(known.subtracting(covered))")
    }

    // MARK: Billing retry and grace

    @Test func gracePeriodKeepsAccessUntilItsEndThenCutsIt() throws {
        let active = Lifecycle.Prior.active.state
        let failed = GrantRules.decide(
            Lifecycle.matched(.current, .didFailToRenew, .gracePeriod, renewal: Self.grace), state: active)
        let grace = try #require(failed.events.first)
        #expect(grace.action == .renew)
        #expect(grace.status == .gracePeriod)
        #expect(grace.expiresDate == Lifecycle.graceEnd)
        #expect(grace.gracePeriodExpiresDate == Lifecycle.graceEnd)
        #expect(grace.expirationIntent == .billingError)
        #expect(failed.changes.first?.idempotencyKey == "101|grace|\(Lifecycle.graceEnd.millisecondsSince1970)")
        let inGrace = try #require(failed.newState)
        #expect(inGrace.expiresDate == Lifecycle.at(30 * Self.day))
        #expect(inGrace.gracePeriodExpiresDate == Lifecycle.graceEnd)

        // The same notification again (another UUID): nothing new.
        #expect(
            GrantRules.decide(
                Lifecycle.matched(.current, .didFailToRenew, .gracePeriod, renewal: Self.grace, uuid: "again"),
                state: inGrace
            ).ignored?.code == .alreadyApplied)

        var endedView = Lifecycle.matched(.current, .gracePeriodExpired, renewal: Self.retry)
        endedView.verified.transaction.signedDate = Lifecycle.at(47 * Self.day)
        let ended = GrantRules.decide(endedView, state: inGrace)
        #expect(ended.events.map(\.action) == [.expire])
        #expect(ended.events.first?.status == .billingRetry)
        #expect(ended.events.first?.expirationIntent == .billingError)
        #expect(ended.changes.first?.idempotencyKey == "101|expire")
        #expect(ended.newState?.gracePeriodExpiresDate == nil)

        // Billing recovers: a new period, access again.
        var recoveryView = Lifecycle.matched(.next, .didRenew, .billingRecovery)
        recoveryView.verified.transaction.signedDate = Lifecycle.at(48 * Self.day)
        let recovered = GrantRules.decide(recoveryView, state: try #require(ended.newState))
        #expect(recovered.events.map(\.action) == [.grant])
        #expect(recovered.newState?.status == .active)
        #expect(recovered.newState?.expirationIntent == nil)
    }

    @Test func graceWithoutItsEndIsTreatedAsBillingRetry() {
        let decision = GrantRules.decide(
            Lifecycle.matched(.current, .didFailToRenew, .gracePeriod, renewal: Self.retry),
            state: Lifecycle.Prior.active.state)
        #expect(decision.events.map(\.action) == [.expire])
        #expect(decision.newState?.status == .billingRetry)
    }

    @Test func recordedRenewalStatusIsCarriedOnTheNextEvent() throws {
        let off = GrantRules.decide(
            Lifecycle.matched(
                .current, .didChangeRenewalStatus, .autoRenewDisabled, renewal: RenewalDetails(autoRenewStatus: .off)),
            state: Lifecycle.Prior.active.state)
        #expect(off.events.isEmpty)
        // EXPIRED without renewal info: the event says what grant recorded.
        var expiredView = Lifecycle.matched(.current, .expired, .voluntary)
        expiredView.verified.transaction.signedDate = Lifecycle.at(32 * Self.day)
        let expired = GrantRules.decide(expiredView, state: try #require(off.newState))
        #expect(expired.events.first?.autoRenewStatus == .off)
        #expect(expired.events.first?.action == .expire)
    }

    @Test func eventsCarryWhatAppleSignedForRevenue() throws {
        var view = Lifecycle.View.next.transaction
        view.offerType = .introductoryOffer
        view.offerIdentifier = "intro-1m"
        let matched = Records.matched(Records.verified(view, notification: .didRenew))
        let event = try #require(GrantRules.decide(matched, state: Lifecycle.Prior.active.state).events.first)
        #expect(event.price == 4_990)
        #expect(event.currency == "EUR")
        #expect(event.storefront == "DEU")
        #expect(event.offerType == .introductoryOffer)
        #expect(event.offerIdentifier == "intro-1m")
        #expect(event.autoRenewStatus == .on)
        #expect(event.expirationIntent == nil)

        let refund = try #require(
            GrantRules.decide(Lifecycle.matched(.refunded, .refund), state: Lifecycle.Prior.active.state).events.first)
        #expect(refund.revocationReason == .refundedDueToIssue)
        #expect(refund.status == .revoked)
    }

    // MARK: Product changes within a group

    @Test func productChangesKeepOneEntitlementPerGroup() throws {
        let upgrade = GrantRules.decide(
            Lifecycle.matched(.upgrade, .didChangeRenewalPref, .upgrade), state: Lifecycle.Prior.active.state)
        #expect(upgrade.events.map(\.productId) == ["pro_monthly", "premium_monthly"])
        #expect(upgrade.events.map(\.status) == [.revoked, .active])
        #expect(upgrade.events.map(\.originalTransactionId) == ["100", "100"])
        let state = try #require(upgrade.newState)
        #expect(state.originalTransactionId == "100")
        #expect(state.productId == "premium_monthly")
        #expect(state.transactionId == "102")
    }

    // MARK: eventIds per (purchase, action, Apple's date)

    @Test func refundReversalRefundGivesThreeEventIdsThatReplaysKeep() throws {
        let active = try #require(Lifecycle.Prior.active.state)
        let first = Lifecycle.matched(.refunded, .refund, uuid: "n-refund-1")
        let reversal = Lifecycle.matched(.reversed, .refundReversed, uuid: "n-reversed")
        var second = Lifecycle.matched(.refunded, .refund, uuid: "n-refund-2")
        second.verified.transaction.revocationDate = Lifecycle.at(45 * Self.day)
        second.verified.transaction.signedDate = Lifecycle.at(45 * Self.day + 1000)

        let d1 = GrantRules.decide(first, state: active)
        let s1 = try #require(d1.newState)
        let d2 = GrantRules.decide(reversal, state: s1)
        let s2 = try #require(d2.newState)
        let d3 = GrantRules.decide(second, state: s2)
        #expect([d1, d2, d3].map { $0.events.map(\.action) } == [[.revoke], [.grant], [.revoke]])
        let ids = [d1, d2, d3].compactMap { $0.events.first?.eventId }
        #expect(Set(ids).count == 3)
        #expect(
            [d1, d2, d3].compactMap { $0.changes.first?.idempotencyKey } == [
                "101|revoke|\(Lifecycle.at(5 * Self.day).millisecondsSince1970)",
                "101|reinstate|\(Lifecycle.at(40 * Self.day).millisecondsSince1970)",
                "101|revoke|\(Lifecycle.at(45 * Self.day).millisecondsSince1970)",
            ])
        #expect(d3.newState?.status == .revoked)

        // Each input decided again against the state it met (a crash before commit) gives its id again.
        #expect(GrantRules.decide(first, state: active).events.first?.eventId == ids[0])
        #expect(GrantRules.decide(reversal, state: s1).events.first?.eventId == ids[1])
        #expect(GrantRules.decide(second, state: s2).events.first?.eventId == ids[2])
        // And delivered again after it was applied, it publishes nothing.
        #expect(GrantRules.decide(second, state: try #require(d3.newState)).events.isEmpty)
        #expect(GrantRules.decide(first, state: try #require(d3.newState)).events.isEmpty)
    }

    // MARK: Reconcile views (no notification)

    static func reconcileView(
        _ view: Lifecycle.View, verifiedAt: Int64, renewal: RenewalDetails? = nil
    ) -> MatchedTransaction {
        var verified = Records.verified(view.transaction, eventId: "r-\(view.rawValue)")
        verified.source = .reconcile
        verified.verifiedAt = Lifecycle.at(verifiedAt)
        verified.renewal = renewal
        return Records.matched(verified)
    }

    @Test func reconcileViewOfAnEndedPeriodExpires() throws {
        let active = Lifecycle.Prior.active.state
        let atEnd = GrantRules.decide(Self.reconcileView(.current, verifiedAt: 30 * Self.day), state: active)
        #expect(atEnd.events.map(\.action) == [.expire])
        #expect(atEnd.events.first?.source == .reconcile)
        #expect(atEnd.newState?.status == .expired)

        let retrying = GrantRules.decide(
            Self.reconcileView(.current, verifiedAt: 31 * Self.day, renewal: Self.retry), state: active)
        #expect(retrying.events.map(\.status) == [.billingRetry])

        // Still in its period: nothing.
        var running = Self.reconcileView(.current, verifiedAt: 29 * Self.day)
        running.verified.transaction.signedDate = Lifecycle.at(29 * Self.day)
        #expect(GrantRules.decide(running, state: active).ignored?.code == .alreadyApplied)
        // Applied once: a second reconcile run changes nothing.
        let again = GrantRules.decide(
            Self.reconcileView(.current, verifiedAt: 32 * Self.day), state: try #require(atEnd.newState))
        #expect(again.events.isEmpty)
    }

    @Test func reconcileViewInAGracePeriodKeepsAccess() throws {
        let decision = GrantRules.decide(
            Self.reconcileView(.current, verifiedAt: 31 * Self.day, renewal: Self.grace),
            state: Lifecycle.Prior.active.state)
        #expect(decision.events.map(\.action) == [.renew])
        #expect(decision.events.first?.status == .gracePeriod)
        // After the grace period's end, the same view expires.
        let over = GrantRules.decide(
            Self.reconcileView(.current, verifiedAt: 47 * Self.day, renewal: Self.grace),
            state: try #require(decision.newState))
        #expect(over.events.map(\.action) == [.expire])
    }

    @Test func reconcileViewRenewsAndRevokes() {
        let active = Lifecycle.Prior.active.state
        let renewed = GrantRules.decide(Self.reconcileView(.next, verifiedAt: 31 * Self.day), state: active)
        #expect(renewed.events.map(\.action) == [.renew])
        let revoked = GrantRules.decide(Self.reconcileView(.refunded, verifiedAt: 7 * Self.day), state: active)
        #expect(revoked.events.map(\.action) == [.revoke])
    }

    @Test func onlyReconcileViewsExpireWithoutANotification() {
        // A client upload of the current period after its end: a renewal may just be late.
        var upload = Self.reconcileView(.current, verifiedAt: 31 * Self.day)
        upload.verified.source = .storeKit2
        #expect(GrantRules.decide(upload, state: Lifecycle.Prior.active.state).events.isEmpty)
    }
}
