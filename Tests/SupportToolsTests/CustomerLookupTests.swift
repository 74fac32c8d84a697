import AppStoreModels
import Foundation
import LocalStack
import SupportTools
import Testing

extension SupportToolsTests {
    /// One simulated customer (one appAccountToken): a consumable, a subscription renewed twice
    /// and a refunded non-consumable; Apple's answers about them as each subcommand prints them.
    @Suite struct CustomerLookups {
        @Test func eachLookupPrintsTheCustomerVerified() async throws {
            try await SupportStack.with(workers: [], gateway: false) { stack, settings in
                let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
                let bundleId = stack.endpoints.bundleId
                let customer = UUID().uuidString.lowercased()
                let consumable = try await simulator.purchase(
                    productId: "coins.100", type: "Consumable", bundleId: bundleId, appAccountToken: customer)
                let subscription = try await simulator.purchase(
                    productId: "pro.monthly", type: "Auto-Renewable Subscription", bundleId: bundleId,
                    appAccountToken: customer)
                _ = try await simulator.renew(originalTransactionId: subscription.originalTransactionId)
                let latest = try await simulator.renew(originalTransactionId: subscription.originalTransactionId)
                let refunded = try await simulator.purchase(
                    productId: "level.pack", type: "Non-Consumable", bundleId: bundleId, appAccountToken: customer)
                _ = try await simulator.refund(transactionId: refunded.transactionId)

                let lookups = try settings.appleLookups(logger: SupportStack.logger)

                // support order: the consumable's order, verified; no grant ever ran here.
                let orderId = try #require(consumable.orderId)
                let order = try SupportStack.json(
                    try await SupportStack.withGrants(settings) { grants in
                        try await OrderReport.make(orderId: orderId, lookups: lookups, grants: grants)
                    })
                #expect(order["orderId"] as? String == orderId)
                #expect(order["found"] as? Bool == true)
                let orderItems = try #require(order["transactions"] as? [[String: Any]])
                #expect(orderItems.count == 1)
                let orderItem = try #require(orderItems.first)
                #expect((orderItem["verification"] as? [String: Any])?["status"] as? String == "verified")
                #expect(
                    (orderItem["transaction"] as? [String: Any])?["transactionId"] as? String
                        == consumable.transactionId)
                #expect((orderItem["transaction"] as? [String: Any])?["purchaseDate"] is String, "dates are ISO-8601")
                #expect((orderItem["grant"] as? [String: Any])?["presence"] as? String == "neverSeen")

                // support history: every transaction of the customer, verified.
                let history = try SupportStack.json(try await lookups.history(of: consumable.transactionId))
                let historyItems = try #require(history["transactions"] as? [[String: Any]])
                let historyIds = Set(
                    historyItems.compactMap { ($0["transaction"] as? [String: Any])?["transactionId"] as? String })
                #expect(
                    historyIds.isSuperset(of: [
                        consumable.transactionId, subscription.transactionId, latest.transactionId,
                        refunded.transactionId,
                    ]))
                #expect(historyItems.count == 5)
                #expect(
                    historyItems.allSatisfy {
                        ($0["verification"] as? [String: Any])?["status"] as? String == "verified"
                    })
                #expect(history["pages"] as? Int == 1)

                // support refunds: the refunded purchase only, with its revocation.
                let refunds = try SupportStack.json(try await lookups.refunds(of: subscription.transactionId))
                let refundItems = try #require(refunds["transactions"] as? [[String: Any]])
                #expect(refundItems.count == 1)
                let refund = try #require(refundItems.first?["transaction"] as? [String: Any])
                #expect(refund["transactionId"] as? String == refunded.transactionId)
                #expect(refund["revocationDate"] is String)

                // support status: one group, active, its last transaction the second renewal.
                let status = try SupportStack.json(try await lookups.statuses(of: subscription.originalTransactionId))
                let groups = try #require(status["groups"] as? [[String: Any]])
                #expect(groups.count == 1)
                let subscriptions = try #require(groups.first?["subscriptions"] as? [[String: Any]])
                #expect(subscriptions.count == 1)
                let current = try #require(subscriptions.first)
                #expect(current["status"] as? String == "active")
                #expect(current["statusCode"] as? Int == 1)
                #expect(current["originalTransactionId"] as? String == subscription.originalTransactionId)
                let last = try #require(current["transaction"] as? [String: Any])
                #expect((last["transaction"] as? [String: Any])?["transactionId"] as? String == latest.transactionId)
                #expect((last["verification"] as? [String: Any])?["status"] as? String == "verified")
                let renewal = try #require(current["renewal"] as? [String: Any])
                #expect((renewal["verification"] as? [String: Any])?["status"] as? String == "verified")
                #expect((renewal["renewalInfo"] as? [String: Any])?["autoRenewProductId"] as? String == "pro.monthly")
            }
        }

        /// Apple pages by 20: a customer with 21 refunded purchases is read to the last page.
        @Test func historyAndRefundsFollowEveryPage() async throws {
            try await SupportStack.with(workers: [], gateway: false) { stack, settings in
                let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
                let customer = UUID().uuidString.lowercased()
                var bought: [String] = []
                for index in 0..<21 {
                    let purchase = try await simulator.purchase(
                        productId: "coins.\(index)", type: "Consumable", bundleId: stack.endpoints.bundleId,
                        appAccountToken: customer)
                    _ = try await simulator.refund(transactionId: purchase.transactionId)
                    bought.append(purchase.transactionId)
                }
                let lookups = try settings.appleLookups(logger: SupportStack.logger)
                let history = try await lookups.history(of: bought[0])
                #expect(history.pages == 2)
                #expect(history.transactions.compactMap { $0.transaction?.transactionId } == bought)
                let refunds = try await lookups.refunds(of: bought[0])
                #expect(refunds.pages == 2)
                #expect(Set(refunds.transactions.compactMap { $0.transaction?.transactionId }) == Set(bought))
                #expect(refunds.transactions.allSatisfy { $0.verification == .verified })
            }
        }

        @Test func anUnknownOrderIsNotFound() async throws {
            try await SupportStack.with(workers: [], gateway: false) { _, settings in
                let lookups = try settings.appleLookups(logger: SupportStack.logger)
                let report = try await SupportStack.withGrants(settings) { grants in
                    try await OrderReport.make(orderId: "MQ0000NOSUCH", lookups: lookups, grants: grants)
                }
                let json = try SupportStack.json(report)
                #expect(json["found"] as? Bool == false)
                #expect((json["transactions"] as? [Any])?.isEmpty == true)
                #expect(
                    throws: Never.self,
                    "republishing nothing needs no user"
                ) {
                    _ = try OrderRepublisher(purchasesTopic: "iap.purchases", bundleId: "b").events(
                        for: report, userId: nil)
                }
            }
        }
    }
}
