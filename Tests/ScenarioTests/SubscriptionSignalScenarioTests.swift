import Foundation
import Kafka
import LocalStack
import PipelineHarness
import TestSupport
import Testing

extension ScenarioTests {
    /// Churn signals on `iap.subscription-events` (D56), in process: a customer turning auto-renew
    /// off and a billing issue each reach the topic once, under the grant's user, while reconcile
    /// brings the same notifications again from Apple's history.
    @Suite(.timeLimit(.minutes(5))) struct SubscriptionSignalScenarioTests {
        @Test func eachSignalIsPublishedOnceForItsUser() async throws {
            try await ReconcilingStack.with(.inProcess) { pipeline in
                let signals = try TopicObserver(
                    bootstrap: pipeline.stack.endpoints.kafka, topics: ["iap.subscription-events"],
                    logger: PipelineHarness.logger)
                defer { Task { await signals.close() } }
                let purchase = try await pipeline.subscribe("churning")
                _ = try await pipeline.simulator.setAutoRenew(
                    originalTransactionId: purchase.originalTransactionId, enabled: false)
                _ = try await pipeline.simulator.failRenewal(
                    originalTransactionId: purchase.originalTransactionId, gracePeriodSeconds: 600)
                let events = {
                    signals.records.compactMap {
                        try? JSONSerialization.jsonObject(with: Data($0.value)) as? [String: Any]
                    }
                }
                _ = try await eventually("both signals published", timeout: .seconds(60)) {
                    events().count >= 2 ? true : nil
                }
                #expect(try await pipeline.settles(), "reconcile's copies of the notifications changed something")
                try await signals.waitUntilCaughtUp()
                let published = events()
                #expect(
                    published.map { "\($0["notificationType"] ?? "") \($0["subtype"] ?? "")" }.sorted() == [
                        "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "DID_FAIL_TO_RENEW GRACE_PERIOD",
                    ], "\(published)")
                #expect(published.allSatisfy { $0["userId"] as? String == "churning" })
                #expect(
                    published.allSatisfy { $0["originalTransactionId"] as? String == purchase.originalTransactionId })
                #expect(Set(published.compactMap { $0["eventId"] as? String }).count == 2)
                let disabled = try #require(published.first { $0["subtype"] as? String == "AUTO_RENEW_DISABLED" })
                #expect(disabled["autoRenewStatus"] as? Int == 0)
            }
        }
    }
}
