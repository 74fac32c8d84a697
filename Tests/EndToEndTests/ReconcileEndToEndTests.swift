import Contracts
import Foundation
import Kafka
import LocalStack
import Pipeline
import TestSupport
import Testing

extension EndToEndTests {
    /// `iap-reconcile` in the embedded stack (decision D32): what Apple's notifications did not
    /// bring, reconcile does, once.
    @Suite(.serialized, .timeLimit(.minutes(5))) struct ReconcileEndToEndTests {
        struct Change: Hashable {
            var eventId: String
            var action: String
            var transactionId: String
            var userId: String
            var source: String
        }

        static func changes(_ observer: TopicObserver) -> Set<Change> {
            Set(
                observer.records.compactMap { record in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any],
                        let eventId = object["eventId"] as? String, let action = object["action"] as? String,
                        let transactionId = object["transactionId"] as? String,
                        let userId = object["userId"] as? String
                    else { return nil }
                    return Change(
                        eventId: eventId, action: action, transactionId: transactionId, userId: userId,
                        source: object["source"] as? String ?? "")
                })
        }

        static func withReconcilingStack(
            gateway: Bool = true, environment: [String: String] = [:],
            _ body: (LocalStack, SimulatorClient, TopicObserver, KafkaProducer) async throws -> Void
        ) async throws {
            let configure = { (configuration: inout LocalStackConfiguration) in
                configuration.gateway = gateway
                configuration.reconcile = true
                configuration.reconcileInterval = .seconds(1)
                // Only the past-expiry subscriptions: a sampled one would be published by the sweep too.
                configuration.workerEnvironment["IAP_RECONCILE_SAMPLE_SIZE"] = "0"
                configuration.workerEnvironment.merge(environment) { $1 }
            }
            try await EndToEnd.withStack(configure) { stack in
                let observer = try TopicObserver(
                    bootstrap: stack.endpoints.kafka, topics: ["iap.entitlements"], logger: EndToEnd.logger)
                let producer = try KafkaProducer(
                    configuration: KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka),
                    logger: EndToEnd.logger)
                do {
                    try await body(stack, SimulatorClient(baseURL: stack.endpoints.simulator), observer, producer)
                } catch {
                    await producer.close()
                    await observer.close()
                    throw error
                }
                await producer.close()
                await observer.close()
            }
        }

        /// A subscription bought and granted to `user` through a backend's purchase event.
        static func subscribe(
            _ user: String, expiresInSeconds: Double? = nil, stack: LocalStack, simulator: SimulatorClient,
            observer: TopicObserver, producer: KafkaProducer
        ) async throws -> SimulatorClient.Transaction {
            let purchase = try await simulator.purchase(
                productId: "vip_monthly", type: "Auto-Renewable Subscription", bundleId: stack.endpoints.bundleId,
                expiresInSeconds: expiresInSeconds)
            let event = PurchaseEvent(
                eventId: "sub-\(user)", bundleId: stack.endpoints.bundleId, userId: user,
                payload: .signedTransaction(purchase.signedTransaction), source: .storeKit2)
            _ = try await producer.send([try ContractTopics().record(event)])
            try await Self.waitUntil("the subscription granted") {
                changes(observer).contains { $0.transactionId == purchase.transactionId && $0.action == "grant" }
            }
            return purchase
        }

        static func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ condition: () -> Bool) async throws {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                guard ContinuousClock.now < deadline else { throw LocalStackError("timed out waiting for \(what)") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        /// Waits for two reconcile runs to complete and the pipeline to drain what they
        /// published, and returns whether the entitlements changed meanwhile.
        static func settles(_ stack: LocalStack, _ observer: TopicObserver) async throws -> Bool {
            let before = changes(observer)
            let metrics = try #require(stack.endpoints.ops["iap-reconcile"]) + "/metrics"
            let runs = await completedRuns(metrics)
            // The first may have been under way when `before` was taken; the second was not.
            _ = try await eventually("two more reconcile runs", timeout: .seconds(60)) {
                await completedRuns(metrics) >= runs + 2 ? true : nil
            }
            try await stack.waitUntilDrained()
            try await observer.waitUntilCaughtUp()
            return changes(observer) == before
        }

        /// `iap_reconcile_runs_total{outcome="completed"}` on reconcile's ops port (0 before the
        /// first run, or when it does not answer).
        static func completedRuns(_ metrics: String) async -> Int {
            guard let text = await OpsScrape.get(metrics) else { return 0 }
            let prefix = #"iap_reconcile_runs_total{outcome="completed"} "#
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }
                .flatMap { Double($0.dropFirst(prefix.count)) }.map { Int($0) } ?? 0
        }

        @Test func aDroppedNotificationIsAppliedExactlyOnceFromHistory() async throws {
            try await Self.withReconcilingStack { stack, simulator, observer, producer in
                let purchase = try await Self.subscribe(
                    "dropped", stack: stack, simulator: simulator, observer: observer, producer: producer)
                try await simulator.setFaults(["dropNotificationRate": 1])
                let renewal = try await simulator.renew(originalTransactionId: purchase.originalTransactionId)
                try await Self.waitUntil("the renewal applied from notification history", timeout: .seconds(60)) {
                    Self.changes(observer).contains {
                        $0.transactionId == renewal.transactionId && $0.action == "renew"
                    }
                }
                #expect(try await Self.settles(stack, observer), "a later reconcile run changed something")
                let all = Self.changes(observer)
                let renews = all.filter { $0.transactionId == renewal.transactionId && $0.action == "renew" }
                #expect(renews.count == 1)
                #expect(renews.first?.source == "reconcile")
                #expect(renews.first?.userId == "dropped")
                // The purchase's own SUBSCRIBED arrived and was republished by reconcile: a no-op.
                #expect(all.filter { $0.transactionId == purchase.transactionId }.map(\.action) == ["grant"])
            }
        }

        @Test func aSubscriptionThatExpiresWithoutANotificationIsExpiredByTheSweep() async throws {
            try await Self.withReconcilingStack { stack, simulator, observer, producer in
                let purchase = try await Self.subscribe(
                    "lapsed", expiresInSeconds: 4, stack: stack, simulator: simulator, observer: observer,
                    producer: producer)
                try await simulator.expireSilently(originalTransactionId: purchase.originalTransactionId)
                try await Self.waitUntil("the sweep expired it", timeout: .seconds(60)) {
                    Self.changes(observer).contains {
                        $0.transactionId == purchase.transactionId && $0.action == "expire"
                    }
                }
                #expect(try await Self.settles(stack, observer), "a later reconcile run changed something")
                let expiries = Self.changes(observer).filter { $0.action == "expire" }
                #expect(expiries.count == 1)
                #expect(expiries.first?.source == "reconcile")
                #expect(expiries.first?.userId == "lapsed")
            }
        }

        @Test func withoutAGatewayNotificationsStillConvergeThroughReconcile() async throws {
            try await Self.withReconcilingStack(gateway: false) { stack, simulator, observer, producer in
                let purchase = try await Self.subscribe(
                    "no-gateway", stack: stack, simulator: simulator, observer: observer, producer: producer)
                let renewal = try await simulator.renew(originalTransactionId: purchase.originalTransactionId)
                try await Self.waitUntil("the renewal recovered from history", timeout: .seconds(60)) {
                    Self.changes(observer).contains {
                        $0.transactionId == renewal.transactionId && $0.action == "renew"
                    }
                }
                #expect(try await Self.settles(stack, observer))
                #expect(
                    Self.changes(observer).filter { $0.transactionId == renewal.transactionId }.map(\.source)
                        == ["reconcile"])
            }
        }

        /// SIGKILL in the middle of paging, several times: the lease of the killed process lapses,
        /// the next start resumes from the checkpoint, and every renewal Apple could not deliver is
        /// applied exactly once.
        @Test func aReconcileKilledWhilePagingResumesAndAppliesEachNotificationOnce() async throws {
            // Pages are slow (Apple's latency) and a dead holder's lease lapses quickly.
            try await Self.withReconcilingStack(environment: ["IAP_RECONCILE_LEASE_SECONDS": "2"]) {
                stack, simulator, observer, producer in
                var subscriptions: [SimulatorClient.Transaction] = []
                for user in 0..<6 {
                    subscriptions.append(
                        try await Self.subscribe(
                            "killed-\(user)", stack: stack, simulator: simulator, observer: observer,
                            producer: producer))
                }
                await stack.kill("iap-reconcile")
                try await simulator.setFaults(["dropNotificationRate": 1, "latencyMs": 400])
                var latest: [String] = []
                for subscription in subscriptions {
                    var renewal = ""
                    for _ in 0..<4 {
                        renewal = try await simulator.renew(originalTransactionId: subscription.originalTransactionId)
                            .transactionId
                    }
                    latest.append(renewal)
                }
                // 30 notifications in history: two pages of Apple's 20, each answered in 400 ms.
                for _ in 0..<3 {
                    try await stack.restart("iap-reconcile")
                    try await Task.sleep(for: .milliseconds(1_600))
                    await stack.kill("iap-reconcile")
                }
                try await stack.restart("iap-reconcile")
                // A subscription's renewals may reach grant in any order (each notification is its
                // own Kafka key); an older period after a newer one changes nothing, so what must
                // hold is that every subscription ends at its latest period.
                try await Self.waitUntil("every subscription renewed to its latest period", timeout: .seconds(90)) {
                    let renewed = Set(Self.changes(observer).filter { $0.action == "renew" }.map(\.transactionId))
                    return renewed.isSuperset(of: latest)
                }
                #expect(try await Self.settles(stack, observer), "a later reconcile run changed something")
                let renews = Self.changes(observer).filter { $0.action == "renew" }
                #expect(renews.allSatisfy { $0.source == "reconcile" })
                // Nothing twice, not even a copy under the same eventId: republished notifications
                // stop at verify's notificationUUID guard.
                let published = observer.records.filter { record in
                    let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any]
                    return object?["action"] as? String == "renew"
                }
                #expect(published.count == renews.count)
                #expect(Set(renews.map(\.transactionId)).count == renews.count)
            }
        }
    }
}
