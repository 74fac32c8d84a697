import Contracts
import Foundation
import Kafka
import LocalStack
import Pipeline
import Processes
import Purchases
import TestSupport
import Testing
import Traces

extension EndToEndTests {
    /// One purchase, one trace (decision D42): through the four stages as processes, every record
    /// of a purchase's path to `iap.entitlements` carries a `traceparent` with the trace id it
    /// started with, and each hop's record names a span of its own. Three ways in: `iap publish`
    /// continuing a backend's traceparent, a backend that sends none (intake starts the trace),
    /// and Apple's notification through the gateway (the gateway starts it).
    @Suite(.serialized, .timeLimit(.minutes(6))) struct TraceEndToEndTests {
        static let stageTopics = ["iap.verify", "iap.verified", "iap.matched", "iap.entitlements"]

        @Test func aPurchasesRecordsShareOneTraceIdFromPublishToEntitlement() async throws {
            try await EndToEnd.withStack { stack in
                let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
                let bundleId = stack.endpoints.bundleId
                let observer = try TopicObserver(
                    bootstrap: stack.endpoints.kafka,
                    topics: ["iap.purchases", "iap.notifications"] + Self.stageTopics,
                    logger: EndToEnd.logger)

                // A backend's own trace, continued by `iap publish`.
                let published = try await simulator.purchase(
                    productId: "gems_1", type: "Consumable", bundleId: bundleId, deliver: false)
                let backendTrace = "0af7651916cd43dd8448eb211c80319c"
                let binDirectory =
                    ProcessInfo.processInfo.environment["IAP_BIN_DIR"] ?? EndToEnd.repositoryRoot + "/.build/debug"
                let publish = try await ChildProcess.run(
                    binDirectory + "/iap",
                    [
                        "publish", "purchase", "--brokers", stack.endpoints.kafka, "--user", "traced-user",
                        "--bundle-id", bundleId, "--event-id", "traced-purchase",
                        "--signed-transaction", published.signedTransaction,
                        "--traceparent", "00-\(backendTrace)-b7ad6b7169203331-01",
                    ])
                #expect(publish.exitCode == 0, "iap publish:\n\(publish.output)")
                #expect(publish.output.contains("traceparent=00-\(backendTrace)-"), "\(publish.output)")

                // A backend that sends no traceparent.
                let untraced = try await simulator.purchase(
                    productId: "gems_2", type: "Consumable", bundleId: bundleId, deliver: false)
                let producer = try KafkaProducer(
                    configuration: KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka),
                    logger: EndToEnd.logger)
                // And the order Apple's notification below is matched by (a record of its own trace).
                let token = UUID().uuidString.lowercased()
                _ = try await producer.send([
                    try ContractTopics().record(
                        PurchaseEvent(
                            eventId: "untraced-purchase", bundleId: bundleId, userId: "untraced-user",
                            payload: .signedTransaction(untraced.signedTransaction))),
                    try ContractTopics().record(
                        OrderEvent(
                            orderId: "notified-order", userId: "notified-user", productId: "gems_3", bundleId: bundleId,
                            appAccountToken: token)),
                ])
                await producer.close()

                // Apple's notification, posted by the simulator to the gateway.
                let notified = try await simulator.purchase(
                    productId: "gems_3", type: "Consumable", bundleId: bundleId, appAccountToken: token, deliver: true)

                let transactions = [published.transactionId, untraced.transactionId, notified.transactionId]
                do {
                    _ = try await eventually(
                        "the three entitlements", timeout: .seconds(120), every: .milliseconds(200)
                    ) {
                        Set(transactions).isSubset(of: Set(observer.records.compactMap(Self.entitledTransaction)))
                            ? true : nil
                    }
                } catch {
                    let seen = Dictionary(grouping: observer.records, by: \.topic).mapValues(\.count)
                    Issue.record(
                        "records per topic: \(seen); entitled: \(observer.records.compactMap(Self.entitledTransaction)) of \(transactions)"
                    )
                    await observer.close()
                    throw error
                }
                try await stack.waitUntilDrained()  // nothing more is coming, a replay included
                try await observer.waitUntilCaughtUp()
                let records = observer.records
                await observer.close()

                for record in records where Self.stageTopics.contains(record.topic) {
                    #expect(
                        Self.traceId(record) != nil,
                        "\(record.topic)/\(record.partition)@\(record.offset) was written without a traceparent")
                }
                let publishedTrace = try Self.path(
                    of: published.transactionId, from: "iap.purchases", in: records)
                #expect(publishedTrace == backendTrace, "the backend's trace was not continued")
                // By its exact eventId: "untraced-purchase" contains "traced-purchase" too.
                let purchaseRecord = records.first {
                    $0.topic == "iap.purchases" && Self.eventId($0) == "traced-purchase"
                }
                #expect(purchaseRecord.flatMap(Self.traceId) == backendTrace)

                let intakeTrace = try Self.path(of: untraced.transactionId, from: nil, in: records)
                let untracedRecord = records.first {
                    $0.topic == "iap.purchases" && Self.value($0).contains("untraced-purchase")
                }
                #expect(untracedRecord != nil && untracedRecord.flatMap(Self.traceId) == nil)

                let gatewayTrace = try Self.path(of: notified.transactionId, from: "iap.notifications", in: records)
                #expect(Set([publishedTrace, intakeTrace, gatewayTrace]).count == 3, "one trace per purchase")
            }
        }

        /// The trace of `transactionId`'s entitlement, after checking that its trace holds one
        /// record per hop (from `first`, when the first producer wrote a traceparent, through each
        /// stage's output), each with a span id of its own.
        static func path(of transactionId: String, from first: String?, in records: [KafkaMessage]) throws
            -> String
        {
            let entitlement = try #require(
                records.first { $0.topic == "iap.entitlements" && entitledTransaction($0) == transactionId },
                "no entitlement for \(transactionId)")
            let trace = try #require(traceId(entitlement), "the entitlement of \(transactionId) has no traceparent")
            let hops = (first.map { [$0] } ?? []) + stageTopics
            let traced = records.filter { traceId($0) == trace && hops.contains($0.topic) }
            #expect(
                traced.map(\.topic).sorted() == hops.sorted(),
                "\(transactionId): trace \(trace) holds \(traced.map(\.topic)), expected one record on each of \(hops)")
            let spans = traced.compactMap {
                $0.headers.last(named: TraceHeaders.traceparent)?.stringValue?.dropFirst(36)
            }
            #expect(Set(spans).count == traced.count, "\(transactionId): a hop reused a span id: \(spans)")
            return trace
        }

        static func traceId(_ record: KafkaMessage) -> String? {
            record.headers.last(named: TraceHeaders.traceparent)?.stringValue.flatMap(TraceHeaders.traceId).map(
                String.init)
        }

        static func value(_ record: KafkaMessage) -> String { String(decoding: record.value, as: UTF8.self) }

        static func eventId(_ record: KafkaMessage) -> String? {
            (try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any])?["eventId"] as? String
        }

        static func entitledTransaction(_ record: KafkaMessage) -> String? {
            guard record.topic == "iap.entitlements",
                let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any]
            else { return nil }
            return object["transactionId"] as? String
        }
    }
}
