import Foundation
import LocalStack
import PipelineHarness
import Testing

extension ScenarioTests {
    /// `iap-reconcile` in the embedded stack (decision D32), in process: what Apple's
    /// notifications did not bring, reconcile does, once.
    @Suite(.timeLimit(.minutes(5))) struct ReconcileScenarioTests {
        @Test func aDroppedNotificationIsAppliedExactlyOnceFromHistory() async throws {
            try await ReconcilingStack.with(.inProcess) { pipeline in
                let purchase = try await pipeline.subscribe("dropped")
                try await pipeline.simulator.setFaults(["dropNotificationRate": 1])
                let renewal = try await pipeline.simulator.renew(originalTransactionId: purchase.originalTransactionId)
                try await pipeline.waitUntil("the renewal applied from notification history", timeout: .seconds(60)) {
                    pipeline.changes.contains {
                        $0.transactionId == renewal.transactionId && $0.action == "renew"
                    }
                }
                #expect(try await pipeline.settles(), "a later reconcile run changed something")
                let all = pipeline.changes
                let renews = all.filter { $0.transactionId == renewal.transactionId && $0.action == "renew" }
                #expect(renews.count == 1)
                #expect(renews.first?.source == "reconcile")
                #expect(renews.first?.userId == "dropped")
                // The purchase's own SUBSCRIBED arrived and was republished by reconcile: a no-op.
                #expect(all.filter { $0.transactionId == purchase.transactionId }.map(\.action) == ["grant"])
            }
        }

        @Test func aSubscriptionThatExpiresWithoutANotificationIsExpiredByTheSweep() async throws {
            try await ReconcilingStack.with(.inProcess) { pipeline in
                let purchase = try await pipeline.subscribe("lapsed", expiresInSeconds: 4)
                try await pipeline.simulator.expireSilently(originalTransactionId: purchase.originalTransactionId)
                try await pipeline.waitUntil("the sweep expired it", timeout: .seconds(60)) {
                    pipeline.changes.contains {
                        $0.transactionId == purchase.transactionId && $0.action == "expire"
                    }
                }
                #expect(try await pipeline.settles(), "a later reconcile run changed something")
                let expiries = pipeline.changes.filter { $0.action == "expire" }
                #expect(expiries.count == 1)
                #expect(expiries.first?.source == "reconcile")
                #expect(expiries.first?.userId == "lapsed")
            }
        }

        @Test func withoutAGatewayNotificationsStillConvergeThroughReconcile() async throws {
            try await ReconcilingStack.with(.inProcess, gateway: false) { pipeline in
                let purchase = try await pipeline.subscribe("no-gateway")
                let renewal = try await pipeline.simulator.renew(originalTransactionId: purchase.originalTransactionId)
                try await pipeline.waitUntil("the renewal recovered from history", timeout: .seconds(60)) {
                    pipeline.changes.contains {
                        $0.transactionId == renewal.transactionId && $0.action == "renew"
                    }
                }
                #expect(try await pipeline.settles())
                #expect(
                    pipeline.changes.filter { $0.transactionId == renewal.transactionId }.map(\.source)
                        == ["reconcile"])
            }
        }
    }
}
