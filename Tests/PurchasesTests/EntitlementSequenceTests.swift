import AppStoreModels
import Contracts
import Foundation
import Purchases
import Testing

/// Each entitlement change carries its number in its purchase's history (decision D48), so a
/// consumer can fold a purchase's changes however Kafka shuffled or repeated them.
@Suite(.timeLimit(.minutes(2))) struct EntitlementSequenceTests {
    static let day = Lifecycle.day

    /// A purchase with four changes published before the notification.
    static func withHistory(_ prior: Lifecycle.Prior) -> EntitlementState? {
        var state = prior.state
        state?.changes = 4
        return state
    }

    @Test(arguments: GrantLifecycleTests.rows) func everyRowNumbersItsChangesAfterThePurchaseCount(_ row: LifecycleRow)
        throws
    {
        let matched = Lifecycle.matched(row.view, row.type, row.subtype, renewal: row.renewal)
        let state = Self.withHistory(row.prior)
        let before = state?.changes ?? 0
        let decision = GrantRules.decide(matched, state: state)
        #expect(decision.events.map(\.sequence) == decision.events.indices.map { before + $0 + 1 })
        let newState = try #require(decision.newState, "the count of a decision with changes is saved")
        #expect(newState.changes == before + decision.events.count)
    }

    /// Two purchases through grant as its store would keep them, interleaved, with redeliveries:
    /// each purchase's events are numbered 1, 2, 3, … with no gap or repeat, an upgrade's two
    /// changes and a revoke and its reinstate (which their dates cannot order) included.
    @Test func aPurchaseHistoryIsNumberedOneByOne() throws {
        func signed(_ matched: MatchedTransaction, _ at: Int64) -> MatchedTransaction {
            var matched = matched
            matched.verified.transaction.signedDate = Lifecycle.at(at)
            return matched
        }
        let bought = signed(Lifecycle.matched(.current, .subscribed, .initialBuy), 1000)
        let upgraded = Lifecycle.matched(.upgrade, .didChangeRenewalPref, .upgrade)
        let autoRenewOff = signed(
            Lifecycle.matched(
                .upgrade, .didChangeRenewalStatus, .autoRenewDisabled, renewal: RenewalDetails(autoRenewStatus: .off)),
            11 * Self.day)
        var refunded = signed(Lifecycle.matched(.upgrade, .refund), 12 * Self.day + 1000)
        refunded.verified.transaction.revocationDate = Lifecycle.at(12 * Self.day)
        let reversed = signed(Lifecycle.matched(.upgrade, .refundReversed), 13 * Self.day)
        var renewed = signed(Lifecycle.matched(.upgrade, .didRenew), 40 * Self.day + 1000)
        renewed.verified.transaction.transactionId = "103"
        renewed.verified.transaction.purchaseDate = Lifecycle.at(40 * Self.day)
        renewed.verified.transaction.expiresDate = Lifecycle.at(70 * Self.day)
        var lapsed = Lifecycle.matched(
            .upgrade, .expired, .voluntary, renewal: GrantLifecycleTests.intent(.customerCancelled))
        lapsed.verified.transaction = renewed.transaction
        lapsed.verified.transaction.signedDate = Lifecycle.at(71 * Self.day)

        let gems = Records.transaction("200", signedDate: Lifecycle.at(1 * Self.day).millisecondsSince1970)
        let gemsBought = Records.matched(Records.verified(gems, notification: .oneTimeCharge))
        var gemsRefund = gems
        gemsRefund.revocationDate = Lifecycle.at(2 * Self.day)
        gemsRefund.signedDate = Lifecycle.at(2 * Self.day + 1000)
        let gemsRefunded = Records.matched(Records.verified(gemsRefund, notification: .refund))
        var gemsReversal = gems
        gemsReversal.signedDate = Lifecycle.at(3 * Self.day)
        let gemsReversed = Records.matched(Records.verified(gemsReversal, notification: .refundReversed))

        let deliveries = [
            bought, gemsBought, upgraded, autoRenewOff, gemsRefunded, refunded, reversed, refunded, gemsReversed,
            gemsBought, renewed, lapsed, bought,
        ]
        var states: [String: EntitlementState] = [:]
        var actions: [String: [EntitlementAction]] = [:]
        var sequences: [String: [Int?]] = [:]
        for matched in deliveries {
            let purchase = matched.transaction.originalTransactionId
            let decision = GrantRules.decide(matched, state: states[purchase])
            if let newState = decision.newState { states[purchase] = newState }
            actions[purchase, default: []] += decision.events.map(\.action)
            sequences[purchase, default: []] += decision.events.map(\.sequence)
        }
        #expect(actions["100"] == [.grant, .revoke, .grant, .revoke, .grant, .renew, .expire])
        #expect(sequences["100"] == [1, 2, 3, 4, 5, 6, 7])
        #expect(states["100"]?.changes == 7)
        #expect(actions["200"] == [.grant, .revoke, .grant])
        #expect(sequences["200"] == [1, 2, 3])
        #expect(states["200"]?.changes == 3)
    }

    /// A redelivery decided again from the state it met (a crash before the commit) republishes
    /// the same numbers, so consumers see a number they have seen.
    @Test func decidingTheSameTransactionAgainGivesTheSameNumbers() throws {
        let upgrade = Lifecycle.matched(.upgrade, .didChangeRenewalPref, .upgrade)
        let state = Self.withHistory(.active)
        let first = GrantRules.decide(upgrade, state: state)
        let again = GrantRules.decide(upgrade, state: state)
        #expect(first.events.map(\.sequence) == [5, 6])
        #expect(again.events.map(\.sequence) == [5, 6])
        #expect(again == first)
        #expect(again.newState?.changes == 6)
    }

    /// States saved before D48, in Redis and on the compacted `iap.entitlement-states`, still read.
    @Test func aStateWithoutItsCountReadsAsNoChanges() throws {
        let before =
            #"{"autoRenewStatus":1,"expiresDate":"2025-12-13T02:13:20.000Z","originalTransactionId":"100","productId":"pro_monthly","productType":"Auto-Renewable Subscription","purchaseDate":"2025-11-13T02:13:20.000Z","revokedTransactionIds":[],"signedDate":"2025-11-13T02:13:21.000Z","status":"active","transactionId":"101","userId":"u-1"}"#
        let fast = try EventDecoder.read(EntitlementState.self, from: Array(before.utf8))
        let codable = try EventDecoder.decodeWithCodable(EntitlementState.self, from: Data(before.utf8))
        #expect(fast.changes == 0)
        #expect(codable.changes == 0)
        #expect(fast == codable)
        #expect(fast.transactionId == "101")
        let record = #"{"schema":"iap.entitlement-state.v1","state":\#(before)}"#
        #expect(try EventDecoder.decode(EntitlementStateRecord.self, from: Array(record.utf8)).state == fast)
    }
}
