import Contracts
import Foundation
import Kafka
import LocalStack
import Pipeline
import Purchases
import Synchronization
import Testing

extension EndToEndTests {
    /// Redis forgets everything mid-flight, then every earlier purchase is published again, and
    /// the token-less ones once more by another user: match's bindings and grant's states came
    /// back from their compacted topics (decision D35), so the replays publish no entitlement
    /// record at all and the other user's are `ownership_conflict`, as they would be had Redis
    /// kept its data.
    @Suite(.serialized, .timeLimit(.minutes(8))) struct RedisLossEndToEndTests {
        static let purchases = 60

        enum Kind: CaseIterable {
            /// StoreKit 2, no token: bound by the publisher's userId.
            case signed
            /// A bare transaction id (an Apple call), no token.
            case bareId
            /// A StoreKit 1 transaction receipt, no token.
            case receipt
            /// StoreKit 2 whose token names an order published before it; the hint names another user.
            case ordered
            /// StoreKit 2 whose token names an order published after it (the purchase waits).
            case lateOrder
            /// An auto-renewable subscription, StoreKit 2, no token.
            case subscription

            var isTokenless: Bool { self == .bareId || self == .receipt }
        }

        struct Purchase {
            var transactionId: String
            var kind: Kind
            var user: String
            var event: PurchaseEvent
            var order: OrderEvent?
        }

        @Test func aReplayAfterRedisLostItsDataGrantsNothingAndStrangersAreRefused() async throws {
            // The marker is looked at rarely: the stores' checks stop match and grant (D35).
            let rarely: (inout LocalStackConfiguration) -> Void = {
                $0.workerEnvironment["IAP_GENERATION_CHECK_SECONDS"] = "20"
            }
            try await EndToEnd.withStack(rarely) { stack in
                let topics = ContractTopics()
                let made = try await Self.make(stack)
                let observer = try TopicObserver(
                    bootstrap: stack.endpoints.kafka, topics: ["iap.entitlements", "iap.rejected"],
                    logger: EndToEnd.logger)
                let producer = try KafkaProducer(
                    configuration: KafkaProducerConfiguration(bootstrapServers: stack.endpoints.kafka),
                    logger: EndToEnd.logger)
                let supervisor = Supervisor(stack)

                // First half granted; the second half in flight when Redis forgets everything.
                let (firstHalf, secondHalf) = (made.prefix(Self.purchases / 2), made.dropFirst(Self.purchases / 2))
                _ = try await producer.send(
                    try firstHalf.compactMap { try $0.order.map(topics.record) }
                        + firstHalf.filter { $0.kind != .lateOrder }.map { try topics.record($0.event) })
                try await Self.waitUntil("the first half granted", observer) {
                    Set(Self.entitlements(observer).map(\.transactionId)).isSuperset(
                        of: firstHalf.filter { $0.kind != .lateOrder }.map(\.transactionId))
                }
                _ = try await producer.send(
                    try firstHalf.filter { $0.kind == .lateOrder }.map { try topics.record($0.event) })
                try await Task.sleep(for: .milliseconds(300))
                _ = try await producer.send(
                    try firstHalf.filter { $0.kind == .lateOrder }.compactMap { try $0.order.map(topics.record) })
                _ = try await producer.send(
                    try secondHalf.filter { $0.kind == .ordered }.compactMap { try $0.order.map(topics.record) }
                        + secondHalf.map { try topics.record($0.event) })
                try await Self.waitUntil("the second half under way", observer) {
                    Set(Self.entitlements(observer).map(\.transactionId)).intersection(secondHalf.map(\.transactionId))
                        .count >= 3
                }
                try await stack.loseRedisData()
                let grantedAtLoss = Set(Self.entitlements(observer).map(\.transactionId)).count
                // Their purchases waited in match's emptied Redis; the journal still has them.
                _ = try await producer.send(
                    try secondHalf.filter { $0.kind == .lateOrder }.compactMap { try $0.order.map(topics.record) })
                #expect(grantedAtLoss < Self.purchases, "Redis lost its data after everything was granted")
                try await Self.waitUntil("every purchase granted after the loss", observer, timeout: .seconds(240)) {
                    Set(Self.entitlements(observer).map(\.transactionId)).isSuperset(of: made.map(\.transactionId))
                }
                try await Self.drain(stack)
                let before = Self.entitlements(observer)
                let restartsAfterFirstLoss = supervisor.restarts.withLock { $0 }
                Self.expectEachGrantedOnceToItsUser(before, made)

                // Redis forgets again, at rest. Another user publishes the token-less purchases
                // first, then every purchase comes again from its own user: every record passes
                // every guard and is decided against what was rebuilt.
                try await stack.loseRedisData()
                let tokenless = made.filter(\.kind.isTokenless)
                let strangers = tokenless.map { purchase in
                    var event = purchase.event
                    event.eventId = "stranger-" + event.eventId
                    event.userId = "stranger"
                    return event
                }
                _ = try await producer.send(try strangers.map(topics.record))
                try await Self.waitUntil("every stranger's replay decided", observer, timeout: .seconds(240)) {
                    let decided = Set(Self.conflicts(observer).filter { $0.user == "stranger" }.map(\.key)).union(
                        Self.entitlements(observer).filter { $0.userId == "stranger" }.map(\.transactionId))
                    return decided.isSuperset(of: tokenless.map(\.transactionId))
                }
                try await Self.drain(stack)
                _ = try await producer.send(try made.map { try topics.record($0.event) })
                try await Self.drain(stack)
                await producer.close()

                let after = Self.entitlements(observer)
                #expect(
                    after.count == before.count,
                    "the replay published \(after.count - before.count) entitlement records: \(after.dropFirst(before.count))"
                )
                Self.expectEachGrantedOnceToItsUser(after, made)
                let conflicts = Self.conflicts(observer)
                let strangersRefused = conflicts.filter { $0.user == "stranger" }.map(\.key)
                #expect(
                    Set(strangersRefused) == Set(tokenless.map(\.transactionId)),
                    "each stranger's replay refused as ownership_conflict: \(strangersRefused.count) refusals for \(tokenless.count) replays"
                )
                #expect(
                    !conflicts.contains { $0.user != "stranger" },
                    "an owner's own replay was refused as ownership_conflict")
                #expect(!after.contains { $0.userId == "stranger" }, "a stranger was granted a purchase")
                let restarts = supervisor.restarts.withLock { $0 }
                for worker in ["iap-match", "iap-grant"] {
                    #expect(
                        restartsAfterFirstLoss[worker, default: 0] >= 1, "\(worker) did not stop for the first loss")
                    #expect(restarts[worker, default: 0] >= 2, "\(worker) did not stop for the second loss")
                }
                await supervisor.stop()
                await observer.close()
            }
        }

        // MARK: The purchases

        static func make(_ stack: LocalStack) async throws -> [Purchase] {
            let simulator = SimulatorClient(baseURL: stack.endpoints.simulator)
            let bundleId = stack.endpoints.bundleId
            var made: [Purchase] = []
            for index in 0..<Self.purchases {
                let kind = Kind.allCases[index % Kind.allCases.count]
                let user = "loss-user-\(index)"
                let ordered = kind == .ordered || kind == .lateOrder
                let token = ordered ? UUID().uuidString.lowercased() : nil
                let product = kind == .subscription ? "loss_monthly" : "loss_\(index % 4)"
                let transaction = try await simulator.purchase(
                    productId: product, type: kind == .subscription ? "Auto-Renewable Subscription" : "Consumable",
                    bundleId: bundleId, appAccountToken: token, expiresInSeconds: kind == .subscription ? 3600 : nil)
                let payload: PurchasePayload =
                    switch kind {
                    case .bareId: .transactionId(transaction.transactionId)
                    case .receipt: .transactionReceipt(transaction.transactionReceipt)
                    case .signed, .ordered, .lateOrder, .subscription: .signedTransaction(transaction.signedTransaction)
                    }
                let event = PurchaseEvent(
                    eventId: "loss-\(index)", bundleId: bundleId, userId: kind == .ordered ? "hint-\(index)" : user,
                    payload: payload)
                let order = token.map {
                    OrderEvent(
                        orderId: "loss-order-\(index)", userId: user, productId: product, bundleId: bundleId,
                        appAccountToken: $0)
                }
                made.append(
                    Purchase(
                        transactionId: transaction.transactionId, kind: kind, user: user, event: event, order: order))
            }
            return made
        }

        // MARK: What the topics say

        struct Entitlement: Hashable {
            var eventId: String
            var transactionId: String
            var userId: String
            var action: String
        }

        static func entitlements(_ observer: TopicObserver) -> [Entitlement] {
            observer.records.compactMap { record in
                guard record.topic == "iap.entitlements",
                    let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any],
                    let eventId = object["eventId"] as? String, let transactionId = object["transactionId"] as? String,
                    let userId = object["userId"] as? String, let action = object["action"] as? String
                else { return nil }
                return Entitlement(eventId: eventId, transactionId: transactionId, userId: userId, action: action)
            }
        }

        struct Conflict {
            /// The record key: the purchase's originalTransactionId.
            var key: String
            /// The publisher's userId (match's refusal quotes the verified record, hints included).
            var user: String?
        }

        /// Every `ownership_conflict` refusal.
        static func conflicts(_ observer: TopicObserver) -> [Conflict] {
            observer.records.compactMap { record in
                guard record.topic == "iap.rejected",
                    let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any],
                    object["reason"] as? String == "ownership_conflict", let key = record.key
                else { return nil }
                let hints = (object["event"] as? [String: Any])?["hints"] as? [String: Any]
                return Conflict(key: String(decoding: key, as: UTF8.self), user: hints?["userId"] as? String)
            }
        }

        /// Nothing lost, nothing granted twice (one eventId per purchase), each to its own user.
        static func expectEachGrantedOnceToItsUser(
            _ entitlements: [Entitlement], _ made: [Purchase], sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let byTransaction = Dictionary(grouping: entitlements, by: \.transactionId)
            for purchase in made {
                let records = byTransaction[purchase.transactionId] ?? []
                #expect(
                    !records.isEmpty, "\(purchase.kind) \(purchase.transactionId) was lost",
                    sourceLocation: sourceLocation)
                #expect(
                    Set(records.map(\.eventId)).count <= 1,
                    "\(purchase.kind) \(purchase.transactionId) was granted under \(Set(records.map(\.eventId)).count) eventIds",
                    sourceLocation: sourceLocation)
                #expect(
                    records.allSatisfy { $0.userId == purchase.user && $0.action == "grant" },
                    "\(purchase.kind) \(purchase.transactionId): \(records)", sourceLocation: sourceLocation)
            }
        }

        // MARK: Waiting

        static func waitUntil(
            _ what: String, _ observer: TopicObserver, timeout: Duration = .seconds(120), _ condition: () -> Bool
        ) async throws {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                guard ContinuousClock.now < deadline else { throw Timeout(what: what) }
                try await Task.sleep(for: .milliseconds(200))
            }
        }

        /// Until every stage has read and committed everything, twice in a row (a record waiting in
        /// a delay queue is not lag, but its re-publication is).
        static func drain(_ stack: LocalStack, timeout: Duration = .seconds(180)) async throws {
            let admin = try KafkaAdmin(bootstrapServers: stack.endpoints.kafka, logger: EndToEnd.logger)
            let stages = [
                ("iap-intake", ["iap.purchases", "iap.notifications"]), ("iap-verify", ["iap.verify"]),
                ("iap-match", ["iap.verified", "iap.orders"]), ("iap-grant", ["iap.matched"]),
            ]
            let deadline = ContinuousClock.now + timeout
            var quiet = 0
            while quiet < 2 {
                guard ContinuousClock.now < deadline else { throw Timeout(what: "the stages to drain") }
                try await Task.sleep(for: .seconds(2))
                var lag: Int64 = 0
                for (group, inputs) in stages {
                    for partition in try await admin.consumerLag(group: group, topics: inputs) {
                        lag += max(partition.highWatermark - (partition.committedOffset ?? 0), 0)
                    }
                }
                quiet = lag == 0 && stack.exited.isEmpty ? quiet + 1 : 0
            }
        }

        struct Timeout: Error, CustomStringConvertible {
            var what: String
            var description: String { "timed out waiting for \(what)" }
        }

        /// Restarts a worker that stopped for its lost state, as a deployment's supervisor would.
        final class Supervisor: Sendable {
            let restarts = Mutex<[String: Int]>([:])
            private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

            init(_ stack: LocalStack) {
                task.withLock {
                    $0 = Task { [self] in
                        while !Task.isCancelled {
                            for name in stack.exited {
                                self.restarts.withLock { $0[name, default: 0] += 1 }
                                try? await stack.restart(name)
                            }
                            try? await Task.sleep(for: .milliseconds(200))
                        }
                    }
                }
            }

            func stop() async {
                let task = task.withLock { $0 }
                task?.cancel()
                await task?.value
            }
        }
    }
}
