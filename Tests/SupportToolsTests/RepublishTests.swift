import Contracts
import Foundation
import Kafka
import LocalStack
import Purchases
import SupportTools
import TestSupport
import Testing
import Topology
import WorkerCommon

extension SupportToolsTests {
    /// `iap support order --republish` on a purchase whose event and notification were both
    /// lost (no gateway, nothing published): one grant, and a second republish changes nothing.
    @Suite struct Republish {
        @Test func republishingAnOrderTwiceGrantsOnce() async throws {
            try await SupportStack.with(gateway: false) { stack, settings in
                let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
                let purchase = try await simulator.purchase(
                    productId: "level.pack", type: "Non-Consumable", bundleId: stack.endpoints.bundleId)
                let orderId = try #require(purchase.orderId)
                let lookups = try settings.appleLookups(logger: SupportStack.logger)
                let republisher = OrderRepublisher(
                    purchasesTopic: try settings.purchasesTopic(), bundleId: settings.app.bundleId)
                var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka)
                producerConfiguration.clientId = "test-support"
                let producer = try KafkaProducer(configuration: producerConfiguration, logger: SupportStack.logger)

                try await SupportStack.withGrants(settings) { grants in
                    let before = try await OrderReport.make(orderId: orderId, lookups: lookups, grants: grants)
                    #expect(before.transactions.first?.grant?.presence == .neverSeen)
                    #expect(throws: SupportError.self, "grant never saw it: the user must be named") {
                        _ = try republisher.events(for: before, userId: nil)
                    }
                    let first = try await republisher.publish(
                        try republisher.events(for: before, userId: "user-42"), with: producer)
                    #expect(first.count == 1)
                    #expect(
                        first.first?.eventId
                            == BusinessKeys.republishedPurchaseEventId(
                                orderId: orderId, transactionId: purchase.transactionId))

                    let granted = try await eventually(
                        "grant's state of the republished purchase", timeout: .seconds(60)
                    ) {
                        try await grants.state(originalTransactionId: purchase.originalTransactionId)
                    }
                    #expect(granted.userId == "user-42")
                    #expect(granted.status == .active)

                    // Again: grant's owner is the user now, and the same event is published.
                    let after = try await OrderReport.make(orderId: orderId, lookups: lookups, grants: grants)
                    #expect(after.transactions.first?.grant?.presence == .seen)
                    #expect(after.transactions.first?.grant?.userId == "user-42")
                    let second = try await republisher.publish(
                        try republisher.events(for: after, userId: nil), with: producer)
                    #expect(second.map(\.eventId) == first.map(\.eventId))
                    try await Self.drained(stack, settings)
                }
                await producer.close()
                let entitlements = try await BoundedTopicRead.run(
                    BoundedTopicRead.configuration(
                        cluster: KafkaCluster(bootstrapServers: stack.endpoints.kafka),
                        groupId: "test-\(UUID().uuidString)",
                        topic: "iap.entitlements", clientId: "test-support"),
                    logger: SupportStack.logger
                ) { records, _ in records }
                let grantsOfPurchase = entitlements.filter { record in
                    let event = try? EventDecoder.decode(EntitlementEvent.self, from: record.value)
                    return event?.originalTransactionId == purchase.originalTransactionId
                }
                #expect(grantsOfPurchase.count == 1)
            }
        }

        /// Every stage's group committed up to the end of its inputs: nothing is in flight.
        static func drained(_ stack: LocalStack, _ settings: SupportSettings) async throws {
            let admin = try KafkaAdmin(bootstrapServers: stack.endpoints.kafka, logger: SupportStack.logger)
            for name in ["intake", "verify", "match", "grant"] {
                let stage = try settings.pipeline.stage(named: name)
                _ = try await eventually("\(name) drained", timeout: .seconds(60)) {
                    let lag = try await admin.consumerLag(group: stage.consumerGroup, topics: stage.inputs)
                    return lag.allSatisfy { $0.lag == 0 && $0.hasCommit || $0.highWatermark == 0 } ? true : nil
                }
            }
        }
    }
}
