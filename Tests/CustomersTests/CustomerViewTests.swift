import AppStoreModels
import Contracts
import Customers
import ProductCatalog
import Testing

@Suite struct CustomerViewTests {
    typealias F = CustomerFixtures

    @Test func theCatalogTurnsPurchasesIntoEntitlementsAndCredits() {
        let view = CustomerView(F.fold(F.history), catalog: F.catalog, at: F.at(days: 70))
        #expect(view.entitlements.map(\.id) == ["no_ads", "vip"])
        let vip = view.entitlements[1]
        #expect(vip.productId == "vip_monthly")
        #expect(vip.since == F.at(days: 0))
        #expect(vip.expiresDate == F.at(days: 90))
        #expect(vip.status == .active && vip.hasAccess)
        #expect(vip.willRenew == false, "the last renewal turned auto-renew off")
        #expect(view.entitlements[0].willRenew == nil, "a one-time purchase does not renew")
        #expect(view.credits == ["gems": .init(received: 800, revoked: 500)], "3 × 100 + 500, the 500 refunded")
        #expect(view.purchases.map(\.productId) == ["remove_ads"])
        #expect(view.unlistedProducts.isEmpty)
        #expect(view.lastEventId == "sub-3|renew|3")
    }

    @Test func aPeriodThatEndedGivesNoAccessBeforeGrantSaysSo() {
        let view = CustomerView(F.fold(F.history), catalog: F.catalog, at: F.at(days: 91))
        #expect(view.entitlements.map(\.id) == ["no_ads"])
    }

    @Test func twoProductsOfOneEntitlementGiveTheOneThatLastsLonger() {
        let weekly = F.change(
            .grant, "vip_weekly", .autoRenewableSubscription, purchase: "weekly", sequence: 1, purchased: 85,
            expires: 92, status: .active)
        let view = CustomerView(F.fold(F.history + [weekly]), catalog: F.catalog, at: F.at(days: 86))
        let vip = view.entitlements.first { $0.id == "vip" }
        #expect(vip?.productId == "vip_weekly", "the weekly runs to day 92, the monthly to day 90")
        #expect(view.entitlements.filter { $0.id == "vip" }.count == 1)
    }

    /// The last renewal's period ends on day 96 while Apple retries billing, access kept until
    /// `graceEnds`.
    static func graceRenewal(graceEnds: Int64) -> EntitlementEvent {
        var grace = F.change(
            .renew, "vip_monthly", .autoRenewableSubscription, purchase: "sub", transaction: "sub-3", sequence: 4,
            purchased: 60, expires: 96, status: .gracePeriod)
        grace.gracePeriodExpiresDate = F.at(days: graceEnds)
        return grace
    }

    @Test func gracePeriodKeepsAccessUntilItsEndThenBillingRetryHasNone() {
        let record = F.fold(F.history + [Self.graceRenewal(graceEnds: 96)])
        let during = CustomerView(record, catalog: F.catalog, at: F.at(days: 92)).entitlements.first { $0.id == "vip" }
        #expect(during?.status == .gracePeriod && during?.hasAccess == true)
        let after = CustomerView(record, catalog: F.catalog, at: F.at(days: 97)).entitlements.first { $0.id == "vip" }
        #expect(after?.status == .billingRetry && after?.hasAccess == false)
    }

    /// The view of a record stays what it was at `now` until ``CustomerRecord/viewChanges(after:)``
    /// (what lets the read API keep a render), and changes there: every day of the history, the
    /// grace period's end included.
    @Test func theViewHoldsUntilTheMomentItSaysItChanges() {
        let record = F.fold(F.history + [Self.graceRenewal(graceEnds: 99)])
        var changes: [Timestamp] = []
        var now = F.at(days: 0)
        while let next = record.viewChanges(after: now) {
            #expect(next > now)
            let view = CustomerView(record, catalog: F.catalog, at: now)
            let justBefore = Timestamp(millisecondsSince1970: next.millisecondsSince1970 - 1)
            #expect(CustomerView(record, catalog: F.catalog, at: justBefore) == view, "unchanged until \(next)")
            #expect(CustomerView(record, catalog: F.catalog, at: next) != view, "changed at \(next)")
            changes.append(next)
            now = next
        }
        #expect(
            changes == [F.at(days: 99)], "the grace period's end; the period's own (day 96) changes nothing in grace")
        #expect(
            CustomerView(record, catalog: F.catalog, at: now)
                == CustomerView(record, catalog: F.catalog, at: F.at(days: 10_000)), "nothing after the last")
    }

    /// Without a catalog every product is its own entitlement and a consumable credits itself.
    @Test func withoutACatalogEachProductIsItsOwnEntitlement() {
        let view = CustomerView(F.fold(F.history), catalog: .empty, at: F.at(days: 70))
        #expect(view.entitlements.map(\.id) == ["remove_ads", "vip_monthly"])
        #expect(
            view.credits == ["gems_100": .init(received: 3, revoked: 0), "gems_500": .init(received: 1, revoked: 1)])
        #expect(view.unlistedProducts == ["gems_100", "gems_500", "remove_ads", "vip_monthly"])
    }
}
