public import Contracts
public import Foundation
public import Kafka
public import LocalStack
import Pipeline
import TestSupport

/// A stack with `iap-reconcile` running every second, an observer of `iap.entitlements` and a
/// producer a backend would publish with: the reconcile scenarios (in process) and the one whose
/// subject is a killed reconcile process share it.
public struct ReconcilingStack: Sendable {
    public let stack: LocalStack
    public let simulator: SimulatorClient
    public let observer: TopicObserver
    public let producer: KafkaProducer

    /// One entitlement change as `iap.entitlements` carries it.
    public struct Change: Hashable, Sendable {
        public var eventId: String
        public var action: String
        public var transactionId: String
        public var userId: String
        public var source: String
    }

    public static func with(
        _ members: MemberMode, gateway: Bool = true, environment: [String: String] = [:],
        _ body: (ReconcilingStack) async throws -> Void
    ) async throws {
        let configure = { (configuration: inout LocalStackConfiguration) in
            configuration.gateway = gateway
            configuration.reconcile = true
            configuration.reconcileInterval = .seconds(1)
            // Only the past-expiry subscriptions: a sampled one would be published by the sweep too.
            configuration.workerEnvironment["IAP_RECONCILE_SAMPLE_SIZE"] = "0"
            configuration.workerEnvironment.merge(environment) { $1 }
        }
        try await PipelineHarness.withStack(members, configure) { stack in
            let observer = try TopicObserver(
                bootstrap: stack.endpoints.kafka, topics: ["iap.entitlements"], logger: PipelineHarness.logger)
            let producer = try KafkaProducer(
                configuration: KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka),
                logger: PipelineHarness.logger)
            let reconciling = ReconcilingStack(
                stack: stack, simulator: SimulatorClient(baseURL: stack.endpoints.simulator), observer: observer,
                producer: producer)
            do {
                try await body(reconciling)
            } catch {
                await producer.close()
                await observer.close()
                throw error
            }
            await producer.close()
            await observer.close()
        }
    }

    /// The entitlement changes observed so far.
    public var changes: Set<Change> {
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

    /// A subscription bought and granted to `user` through a backend's purchase event.
    public func subscribe(_ user: String, expiresInSeconds: Double? = nil) async throws -> SimulatorClient.Transaction {
        let purchase = try await simulator.purchase(
            productId: "vip_monthly", type: "Auto-Renewable Subscription", bundleId: stack.endpoints.bundleId,
            expiresInSeconds: expiresInSeconds)
        let event = PurchaseEvent(
            eventId: "sub-\(user)", bundleId: stack.endpoints.bundleId, userId: user,
            payload: .signedTransaction(purchase.signedTransaction), source: .storeKit2)
        _ = try await producer.send([try ContractTopics().record(event)])
        try await waitUntil("the subscription granted") {
            changes.contains { $0.transactionId == purchase.transactionId && $0.action == "grant" }
        }
        return purchase
    }

    public func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ condition: () -> Bool) async throws {
        _ = try await eventually(what, timeout: timeout, every: .milliseconds(100)) { condition() ? true : nil }
    }

    /// Waits for two reconcile runs to complete and the pipeline to drain what they
    /// published, and returns whether the entitlements changed meanwhile.
    ///
    /// What is measured against is taken once the pipeline has drained and the observer has
    /// read it: a change still on its way from the test's own events (a notification's
    /// entitlement change arriving just after its signal) is not reconcile's.
    public func settles() async throws -> Bool {
        try await stack.waitUntilDrained()
        try await observer.waitUntilCaughtUp()
        let before = changes
        guard let ops = stack.endpoints.ops["iap-reconcile"] else { throw LocalStackError("reconcile is not running") }
        let metrics = ops + "/metrics"
        let runs = await Self.completedRuns(metrics)
        // The first may have been under way when `before` was taken; the second was not.
        _ = try await eventually("two more reconcile runs", timeout: .seconds(60)) {
            await Self.completedRuns(metrics) >= runs + 2 ? true : nil
        }
        try await stack.waitUntilDrained()
        try await observer.waitUntilCaughtUp()
        return changes == before
    }

    /// `iap_reconcile_runs_total{outcome="completed"}` on reconcile's ops port (0 before the
    /// first run, or when it does not answer).
    static func completedRuns(_ metrics: String) async -> Int {
        guard let text = await OpsScrape.get(metrics) else { return 0 }
        let prefix = #"iap_reconcile_runs_total{outcome="completed"} "#
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }
            .flatMap { Double($0.dropFirst(prefix.count)) }.map { Int($0) } ?? 0
    }
}
