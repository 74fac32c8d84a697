import Contracts
import Foundation
import Kafka
import LocalStack
import Pipeline
import Purchases
import Testing

extension EndToEndTests {
    /// Workers killed with SIGKILL in the middle of a batch and restarted: nothing is lost and no
    /// purchase is granted twice (a replayed record may be written again, with the same eventId).
    @Suite(.serialized, .timeLimit(.minutes(6))) struct CrashTests {
        static let purchases = 600

        @Test(arguments: ["iap-grant", "iap-verify", "iap-match"])
        func killedWorkerLosesNothingAndGrantsNothingTwice(_ victim: String) async throws {
            try await EndToEnd.withStack { stack in
                let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
                let topics = ContractTopics()
                var records: [KafkaRecord] = []
                var transactions: Set<String> = []
                for index in 0..<Self.purchases {
                    let purchase = try await simulator.purchase(
                        productId: "gems_\(index % 5)", type: "Consumable", bundleId: stack.endpoints.bundleId)
                    transactions.insert(purchase.transactionId)
                    // Half StoreKit 2 (verified locally), half bare ids (an Apple call each).
                    let payload: PurchasePayload =
                        index.isMultiple(of: 2)
                        ? .signedTransaction(purchase.signedTransaction) : .transactionId(purchase.transactionId)
                    let event = PurchaseEvent(
                        eventId: "crash-\(index)", bundleId: stack.endpoints.bundleId, userId: "user-\(index % 37)",
                        payload: payload)
                    records.append(try topics.record(event))
                }
                let observer = try TopicObserver(
                    bootstrap: stack.endpoints.kafka, topics: ["iap.entitlements"], logger: EndToEnd.logger)
                let producer = try KafkaProducer(
                    configuration: KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka),
                    logger: EndToEnd.logger)
                // The first half shows every stage (and the observer) running; the victim dies
                // while it works on the second half.
                _ = try await producer.send(Array(records.prefix(Self.purchases / 2)))
                try await waitUntil("the first grants") { Self.grants(observer).count >= 10 }
                _ = try await producer.send(Array(records.dropFirst(Self.purchases / 2)))
                await producer.close()
                try await Task.sleep(for: .milliseconds(300))
                await stack.kill(victim)
                let grantedAtKill = Self.grants(observer).count
                try await Task.sleep(for: .seconds(2))
                try await stack.restart(victim)

                try await waitUntil("every purchase granted", timeout: .seconds(180)) {
                    Self.grants(observer).count >= Self.purchases
                }
                // A replayed duplicate would come from a record not yet committed or a retry still
                // waiting: once no stage has either and the observer read to the log end, none is coming.
                try await stack.waitUntilDrained()
                try await observer.waitUntilCaughtUp()
                let grants = Self.grants(observer)
                let distinctEventIds = Set(grants.map(\.eventId))
                let byTransaction = Dictionary(grouping: grants, by: \.transactionId).mapValues {
                    Set($0.map(\.eventId))
                }
                #expect(
                    grantedAtKill < Self.purchases,
                    "the kill came after everything was granted; the test proved nothing")
                #expect(Set(byTransaction.keys) == transactions, "a purchase was lost or a stranger granted")
                #expect(byTransaction.values.allSatisfy { $0.count == 1 }, "a purchase was granted under two eventIds")
                #expect(distinctEventIds.count == Self.purchases)
                await observer.close()
            }
        }

        struct Grant: Hashable {
            var eventId: String
            var transactionId: String
        }

        static func grants(_ observer: TopicObserver) -> [Grant] {
            observer.records.compactMap { record in
                guard let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any],
                    object["action"] as? String == "grant", let eventId = object["eventId"] as? String,
                    let transactionId = object["transactionId"] as? String
                else { return nil }
                return Grant(eventId: eventId, transactionId: transactionId)
            }
        }

        private func waitUntil(_ what: String, timeout: Duration = .seconds(120), _ condition: () -> Bool) async throws
        {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                guard ContinuousClock.now < deadline else { throw CrashTestTimeout(what: what) }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        struct CrashTestTimeout: Error, CustomStringConvertible {
            var what: String
            var description: String { "timed out waiting for \(what)" }
        }
    }
}
