import AppStoreModels
import Contracts
import Purchases
import Testing

/// Grant: exactly one effective change per (transaction, action).
@Suite(.timeLimit(.minutes(2))) struct GrantTests {
    let store = InMemoryEntitlementStateStore()
    var rules: GrantRules { GrantRules(store: self.store) }

    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_763_000_000_000

    /// decide + commit, as the worker does once the events are published.
    func apply(_ matched: MatchedTransaction) async throws -> GrantDecision {
        let decision = try await self.rules.decide(matched)
        try await self.rules.commit(decision)
        return decision
    }

    func subscription(
        _ transactionId: String,
        product: String = "pro_monthly",
        period: Int64,
        signed: Int64? = nil,
        notification: NotificationTypeV2? = nil,
        revoked: Bool = false,
        isUpgraded: Bool? = nil,
        purchase: Int64? = nil
    ) -> MatchedTransaction {
        let purchaseDate = purchase ?? Self.start + (period - 1) * 30 * Self.day
        let transaction = Records.transaction(
            transactionId, original: "100", productId: product, type: .autoRenewableSubscription,
            purchaseDate: purchaseDate, expiresDate: Self.start + period * 30 * Self.day,
            signedDate: signed ?? purchaseDate + 1000, revocationDate: revoked ? purchaseDate + 5 * Self.day : nil,
            isUpgraded: isUpgraded
        )
        return Records.matched(Records.verified(transaction, userId: "u-1", notification: notification))
    }

    // MARK: One-time purchases

    @Test func consumableGrantsItsQuantityOnce() async throws {
        let purchase = Records.matched(Records.verified(Records.transaction(quantity: 5), userId: "u-1"))
        let decision = try await self.apply(purchase)
        #expect(decision.events.map(\.action) == [.grant])
        #expect(decision.events.first?.quantity == 5)
        #expect(decision.events.first?.productType == .consumable)
        #expect(decision.changes.first?.idempotencyKey == "2000000000000001|grant")

        let again = try await self.apply(purchase)
        #expect(again.events.isEmpty)
        #expect(again.ignored?.code == .alreadyApplied)
    }

    @Test func nonConsumableAndNonRenewingGrant() async throws {
        let lifetime = Records.matched(
            Records.verified(Records.transaction("1", productId: "unlock", type: .nonConsumable)))
        #expect(try await self.apply(lifetime).events.first?.expiresDate == nil)

        let season = Records.transaction(
            "2", productId: "season_pass", type: .nonRenewingSubscription, expiresDate: Self.start + 90 * Self.day)
        let pass = Records.matched(Records.verified(season))
        let event = try #require(try await self.apply(pass).events.first)
        #expect(event.action == .grant)
        #expect(event.expiresDate == Timestamp(millisecondsSince1970: Self.start + 90 * Self.day))
    }

    @Test func refundRevokesAndReversalGrantsAgainUnderANewEventId() async throws {
        let purchase = Records.transaction(quantity: 2, signedDate: Self.start + 1000)
        let granted = try await self.apply(Records.matched(Records.verified(purchase, userId: "u-1")))

        let refunded = Records.transaction(
            quantity: 2, signedDate: Self.start + 10 * Self.day, revocationDate: Self.start + 9 * Self.day)
        let revoke = try await self.apply(Records.matched(Records.verified(refunded, notification: .refund)))
        #expect(revoke.events.map(\.action) == [.revoke])
        #expect(revoke.events.first?.revocationDate == Timestamp(millisecondsSince1970: Self.start + 9 * Self.day))

        // The device's stale copy (signed before the refund) grants nothing.
        let stale = try await self.apply(Records.matched(Records.verified(purchase, userId: "u-1", eventId: "e-late")))
        #expect(stale.events.isEmpty)
        #expect(stale.ignored?.code == .outOfOrder)

        let reversed = Records.transaction(quantity: 2, signedDate: Self.start + 20 * Self.day)
        let reinstate = try await self.apply(Records.matched(Records.verified(reversed, notification: .refundReversed)))
        #expect(reinstate.events.map(\.action) == [.grant])
        // A revoke is named by its revocationDate, a reinstatement by the reversal's signing date (D31).
        #expect(revoke.changes.first?.idempotencyKey == "2000000000000001|revoke|\(Self.start + 9 * Self.day)")
        #expect(reinstate.changes.first?.idempotencyKey == "2000000000000001|reinstate|\(Self.start + 20 * Self.day)")

        let ids = [granted, revoke, reinstate].compactMap { $0.events.first?.eventId }
        #expect(Set(ids).count == 3)
        // The grant's id is the one it had before D31.
        #expect(ids.first == "d81e035e-0585-88a0-bab5-295e45e54403")
        #expect(await self.store.state(originalTransactionId: "2000000000000001")?.status == .active)
    }

    @Test func familyRevokeRevokes() async throws {
        let shared = Records.transaction("5", productId: "unlock", type: .nonConsumable, ownership: .familyShared)
        #expect(try await self.apply(Records.matched(Records.verified(shared))).events.map(\.action) == [.grant])
        // REVOKE: the family member lost access; Apple may or may not date it.
        let revoked = Records.transaction(
            "5", productId: "unlock", type: .nonConsumable, signedDate: Self.start + Self.day, ownership: .familyShared)
        let revoke = try await self.apply(Records.matched(Records.verified(revoked, notification: .revoke)))
        #expect(revoke.events.map(\.action) == [.revoke])
        #expect(
            try await self.apply(Records.matched(Records.verified(revoked, notification: .revoke, uuid: "n-again")))
                .events.isEmpty)
    }

    @Test func revocationOfSomethingNeverGrantedKeepsALateGrantOff() async throws {
        let refunded = Records.transaction(signedDate: Self.start + Self.day, revocationDate: Self.start)
        let refund = try await self.apply(Records.matched(Records.verified(refunded, notification: .refund)))
        #expect(refund.events.isEmpty)
        #expect(refund.ignored?.code == .neverGranted)
        let late = try await self.apply(
            Records.matched(Records.verified(Records.transaction(signedDate: Self.start), userId: "u-1")))
        #expect(late.events.isEmpty)
    }

    // MARK: Subscriptions

    @Test func subscriptionGrantsThenRenews() async throws {
        let first = try await self.apply(self.subscription("101", period: 1))
        #expect(first.events.map(\.action) == [.grant])
        #expect(first.events.first?.expiresDate == Timestamp(millisecondsSince1970: Self.start + 30 * Self.day))

        let renewal = try await self.apply(self.subscription("102", period: 2, notification: .didRenew))
        #expect(renewal.events.map(\.action) == [.renew])
        #expect(renewal.events.first?.transactionId == "102")
        #expect(renewal.events.first?.originalTransactionId == "100")
        #expect(renewal.events.first?.expiresDate == Timestamp(millisecondsSince1970: Self.start + 60 * Self.day))

        // The same renewal from the app's upload: already applied.
        #expect(try await self.apply(self.subscription("102", period: 2)).ignored?.code == .alreadyApplied)
    }

    @Test func olderUpdatesArriveLateAndChangeNothing() async throws {
        _ = try await self.apply(self.subscription("101", period: 1))
        _ = try await self.apply(self.subscription("102", period: 2))
        // DID_RENEW of period 1 delivered after period 2 (signed later, but an older period).
        let late = try await self.apply(
            self.subscription("101", period: 1, signed: Self.start + 45 * Self.day, notification: .didRenew))
        #expect(late.events.isEmpty)
        #expect(late.ignored?.code == .outOfOrder)
        // A view signed before the state's last change.
        let stale = try await self.apply(
            self.subscription("103", period: 3, signed: Self.start, notification: .didRenew))
        #expect(stale.ignored?.code == .outOfOrder)
        #expect(await self.store.state(originalTransactionId: "100")?.transactionId == "102")
    }

    @Test func expiredExpiresOnceAndNotAnOlderPeriod() async throws {
        _ = try await self.apply(self.subscription("101", period: 1))
        _ = try await self.apply(self.subscription("102", period: 2))
        let early = try await self.apply(
            self.subscription("101", period: 1, signed: Self.start + 59 * Self.day, notification: .expired))
        #expect(early.ignored?.code == .outOfOrder)

        let expire = try await self.apply(
            self.subscription("102", period: 2, signed: Self.start + 61 * Self.day, notification: .expired))
        #expect(expire.events.map(\.action) == [.expire])
        #expect(expire.changes.first?.idempotencyKey == "102|expire")
        #expect(
            try await self.apply(
                self.subscription("102", period: 2, signed: Self.start + 62 * Self.day, notification: .expired)
            ).events.isEmpty)

        // Resubscribing later starts the entitlement again.
        let back = try await self.apply(self.subscription("104", period: 4, notification: .subscribed))
        #expect(back.events.map(\.action) == [.grant])
    }

    @Test func upgradeRevokesTheProductUpgradedAwayFrom() async throws {
        _ = try await self.apply(self.subscription("101", product: "pro_monthly", period: 1))
        // Upgrade in the middle of period 1: a new transaction for the higher tier.
        let upgrade = try await self.apply(
            self.subscription(
                "102", product: "premium_monthly", period: 2, notification: .didChangeRenewalPref,
                purchase: Self.start + 10 * Self.day
            ))
        #expect(upgrade.events.map(\.action) == [.revoke, .grant])
        #expect(upgrade.events.map(\.productId) == ["pro_monthly", "premium_monthly"])
        #expect(upgrade.events.first?.transactionId == "101")
        #expect(upgrade.events.first?.revocationDate == Timestamp(millisecondsSince1970: Self.start + 10 * Self.day))

        // Apple's re-signed old transaction (isUpgraded) arrives afterwards: nothing more to do.
        let old = try await self.apply(
            self.subscription(
                "101", product: "pro_monthly", period: 1, signed: Self.start + 11 * Self.day, isUpgraded: true))
        #expect(old.events.isEmpty)
    }

    @Test func upgradedOldTransactionArrivingFirstRevokesIt() async throws {
        _ = try await self.apply(self.subscription("101", product: "pro_monthly", period: 1))
        let old = try await self.apply(
            self.subscription(
                "101", product: "pro_monthly", period: 1, signed: Self.start + 10 * Self.day, isUpgraded: true))
        #expect(old.events.map(\.action) == [.revoke])
        #expect(old.events.first?.productId == "pro_monthly")
        let new = try await self.apply(
            self.subscription(
                "102", product: "premium_monthly", period: 2, signed: Self.start + 10 * Self.day + 1,
                purchase: Self.start + 10 * Self.day
            ))
        #expect(new.events.map(\.action) == [.grant])
        #expect(new.events.first?.productId == "premium_monthly")
    }

    @Test func downgradeAtRenewalExpiresTheOldProduct() async throws {
        _ = try await self.apply(self.subscription("101", product: "premium_monthly", period: 1))
        let downgrade = try await self.apply(self.subscription("102", product: "pro_monthly", period: 2))
        #expect(downgrade.events.map(\.action) == [.expire, .grant])
        #expect(downgrade.events.map(\.productId) == ["premium_monthly", "pro_monthly"])
    }

    @Test func refundOfTheCurrentPeriodRevokesTheSubscription() async throws {
        _ = try await self.apply(self.subscription("101", period: 1))
        let refund = try await self.apply(
            self.subscription("101", period: 1, signed: Self.start + 6 * Self.day, notification: .refund, revoked: true)
        )
        #expect(refund.events.map(\.action) == [.revoke])
        #expect(await self.store.state(originalTransactionId: "100")?.status == .revoked)
        // A late DID_RENEW signed before the refund must not grant again.
        let late = try await self.apply(
            self.subscription("102", period: 2, signed: Self.start + 5 * Self.day, notification: .didRenew))
        #expect(late.events.isEmpty)
    }

    @Test func renewalExtensionOfTheSameTransactionIsItsOwnChange() async throws {
        _ = try await self.apply(self.subscription("101", period: 1))
        _ = try await self.apply(self.subscription("102", period: 2))
        var extended = self.subscription(
            "102", period: 2, signed: Self.start + 50 * Self.day, notification: .renewalExtended)
        extended.verified.transaction.expiresDate = Timestamp(millisecondsSince1970: Self.start + 67 * Self.day)
        let decision = try await self.apply(extended)
        #expect(decision.events.map(\.action) == [.renew])
        #expect(decision.changes.first?.idempotencyKey == "102|renew|\(Self.start + 67 * Self.day)")
    }

    // MARK: Identity and phases

    @Test func eventIdsAreStableAcrossDecisions() async throws {
        let matched = self.subscription("101", period: 1)
        let a = GrantRules.decide(matched, state: nil).events
        let b = GrantRules.decide(matched, state: nil).events
        #expect(a.map(\.eventId) == b.map(\.eventId))
        let other = GrantRules.decide(self.subscription("999", period: 1), state: nil).events
        #expect(a.map(\.eventId) != other.map(\.eventId))
        #expect(a.first?.eventId.count == 36)
    }

    @Test func nothingIsRecordedUntilCommitted() async throws {
        let matched = self.subscription("101", period: 1)
        let first = try await self.rules.decide(matched)
        // The worker crashed before publishing: the same decision comes again.
        let second = try await self.rules.decide(matched)
        #expect(first == second)
        try await self.rules.commit(second)
        #expect(try await self.rules.decide(matched).events.isEmpty)
        #expect(matched.idempotencyKey == matched.verified.recordKey)
    }
}
