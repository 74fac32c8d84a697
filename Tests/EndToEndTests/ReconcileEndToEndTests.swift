import Foundation
import Kafka
import LocalStack
import PipelineHarness
import Testing

extension EndToEndTests {
    /// `iap-reconcile` as a process, killed while paging (decision D32); the scenarios that do
    /// not kill it run in process (`ScenarioTests.ReconcileScenarioTests`).
    @Suite(.serialized, .timeLimit(.minutes(5))) struct ReconcileEndToEndTests {
        /// SIGKILL in the middle of paging, several times: the lease of the killed process lapses,
        /// the next start resumes from the checkpoint, and every renewal Apple could not deliver is
        /// applied exactly once.
        @Test func aReconcileKilledWhilePagingResumesAndAppliesEachNotificationOnce() async throws {
            // Pages are slow (Apple's latency) and a dead holder's lease lapses quickly.
            try await ReconcilingStack.with(.processes, environment: ["IAP_RECONCILE_LEASE_SECONDS": "2"]) {
                pipeline in
                var subscriptions: [SimulatorClient.Transaction] = []
                for user in 0..<6 {
                    subscriptions.append(
                        try await pipeline.subscribe("killed-\(user)"))
                }
                await pipeline.stack.kill("iap-reconcile")
                try await pipeline.simulator.setFaults(["dropNotificationRate": 1, "latencyMs": 400])
                var latest: [String] = []
                for subscription in subscriptions {
                    var renewal = ""
                    for _ in 0..<4 {
                        renewal = try await pipeline.simulator.renew(
                            originalTransactionId: subscription.originalTransactionId
                        )
                        .transactionId
                    }
                    latest.append(renewal)
                }
                // 30 notifications in history: two pages of Apple's 20, each answered in 400 ms.
                for _ in 0..<3 {
                    try await pipeline.stack.restart("iap-reconcile")
                    try await Task.sleep(for: .milliseconds(1_600))
                    await pipeline.stack.kill("iap-reconcile")
                }
                try await pipeline.stack.restart("iap-reconcile")
                // A subscription's renewals may reach grant in any order (each notification is its
                // own Kafka key); an older period after a newer one changes nothing, so what must
                // hold is that every subscription ends at its latest period.
                try await pipeline.waitUntil("every subscription renewed to its latest period", timeout: .seconds(90)) {
                    let renewed = Set(pipeline.changes.filter { $0.action == "renew" }.map(\.transactionId))
                    return renewed.isSuperset(of: latest)
                }
                #expect(try await pipeline.settles(), "a later reconcile run changed something")
                let renews = pipeline.changes.filter { $0.action == "renew" }
                #expect(renews.allSatisfy { $0.source == "reconcile" })
                // Nothing twice, not even a copy under the same eventId: republished notifications
                // stop at verify's notificationUUID guard.
                let published = pipeline.observer.records.filter { record in
                    let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any]
                    return object?["action"] as? String == "renew"
                }
                #expect(published.count == renews.count)
                #expect(Set(renews.map(\.transactionId)).count == renews.count)
            }
        }
    }
}
