import AppStore
import AppStoreModels
import AppStoreSimulator
import Contracts
import Foundation
import Hosting
import Kafka
import LocalStack
import Logging
import Pipeline
import Purchases
import Redis
import ServiceLifecycle
import TestSupport
import Testing
import Topology

@testable import Workers

/// Grant answers a simulated `CONSUMPTION_REQUEST` with Send Consumption Information exactly
/// once (decision D34): the grant stage as `iap-grant` assembles it, against the mock broker, a
/// real redis-server and the simulator's Server API.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ConsumptionAnswerTests {
    static let bundleId = "com.example.game"

    @Test func answeredOnceAlthoughApplesFirstAnswerIsRetryable() async throws {
        try await withGrantStage(answering: true) { stage in
            let gems = try await stage.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: Self.bundleId, quantity: 3,
                environment: "Sandbox")
            try await stage.publish(try Self.purchase(gems.signedTransaction))
            try await stage.waitForEvents(1)

            // Apple fails every call until the first failure was seen: the answer is retried.
            try await stage.simulator.setFaults(["rate": 1, "kinds": ["5000001"]])
            let request = try await stage.simulator.consumptionRequest(transactionId: gems.transactionId)
            let record = try Self.notification(request.signedPayload)
            try await stage.publish(record)
            _ = try await eventually("Apple's retryable failure", timeout: .seconds(30)) {
                try await stage.simulator.stats().faults["5000001", default: 0] > 0 ? true : nil
            }
            #expect(try await stage.simulator.consumptionAnswers().isEmpty)
            try await stage.simulator.setFaults([:])

            let answers = try await eventually("the answer after the retry", timeout: .seconds(60)) {
                let answers = try await stage.simulator.consumptionAnswers()
                return answers.isEmpty ? nil : answers
            }
            #expect(answers.count == 1)
            let answer = try #require(answers.first)
            #expect(answer.transactionId == gems.transactionId && answer.environment == "Sandbox")
            #expect(answer.customerConsented && !answer.sampleContentProvided)
            #expect(answer.deliveryStatus == "DELIVERED" && answer.consumptionPercentage == 100_000)
            #expect(answer.refundPreference == "DECLINE")

            // The same notification again, and Apple repeating the request under a new UUID,
            // then a refund of the same purchase (same key, so it runs after them).
            try await stage.publish(record)
            let repeated = try await stage.simulator.consumptionRequest(transactionId: gems.transactionId)
            try await stage.publish(try Self.notification(repeated.signedPayload))
            let refund = try await stage.simulator.refund(transactionId: gems.transactionId)
            try await stage.publish(try Self.notification(refund.signedPayload))
            let events = try await stage.waitForEvents(2)
            #expect(events.map(\.action) == [.grant, .revoke])
            #expect(try await stage.simulator.consumptionAnswers().count == 1)
        }
    }

    @Test func notAnsweredWhenTheSettingIsOff() async throws {
        try await withGrantStage(answering: false) { stage in
            let gems = try await stage.simulator.purchase(
                productId: "gems_100", type: "Consumable", bundleId: Self.bundleId, environment: "Sandbox")
            try await stage.publish(try Self.purchase(gems.signedTransaction))
            let request = try await stage.simulator.consumptionRequest(transactionId: gems.transactionId)
            try await stage.publish(try Self.notification(request.signedPayload))
            let refund = try await stage.simulator.refund(transactionId: gems.transactionId)
            try await stage.publish(try Self.notification(refund.signedPayload))
            #expect(try await stage.waitForEvents(2).map(\.action) == [.grant, .revoke])
            #expect(try await stage.simulator.consumptionAnswers().isEmpty)
            #expect(try await stage.simulator.stats().serverAPIRequests == 0)
        }
    }

    // MARK: Records as match would hand them to grant

    /// A purchase the app reported, matched to `u-1`.
    static func purchase(_ signedTransaction: String) throws -> MatchedTransaction {
        let details = try TransactionDetails(
            verified: ParsedJWS<JWSTransactionDecodedPayload>(signedTransaction).claimedPayload)
        let now = Timestamp(Date())
        return MatchedTransaction(
            verified: VerifiedTransaction(
                transaction: details, hints: PublisherHints(eventId: "e-\(details.transactionId)", userId: "u-1"),
                source: .storeKit2, receivedAt: now, verifiedAt: now),
            userId: "u-1", orderId: nil, matchedBy: .user)
    }

    /// A notification the simulator signed, matched to `u-1` (verify's checks are its own tests').
    static func notification(_ signedPayload: String) throws -> MatchedTransaction {
        let payload = try ParsedJWS<ResponseBodyV2DecodedPayload>(signedPayload).claimedPayload
        let signed = try #require(payload.data?.signedTransactionInfo)
        let details = try TransactionDetails(verified: ParsedJWS<JWSTransactionDecodedPayload>(signed).claimedPayload)
        let now = Timestamp(Date())
        return MatchedTransaction(
            verified: VerifiedTransaction(
                transaction: details, hints: PublisherHints(), source: .notification, receivedAt: now, verifiedAt: now,
                notification: NotificationContext(
                    notificationType: try #require(payload.notificationType),
                    notificationUUID: try #require(payload.notificationUUID), signedDate: payload.signedDate)),
            userId: "u-1", orderId: nil, matchedBy: .user)
    }
}

/// A running grant stage and what a test drives it with.
struct GrantStageFixture {
    let simulator: SimulatorClient
    let producer: KafkaProducer
    let entitlements: ConsumerProbe
    let input: String

    func publish(_ matched: MatchedTransaction) async throws {
        _ = try await producer.send(try KafkaRecord.event(matched, topic: input, key: matched.partitionKey))
    }

    /// Waits until at least `count` entitlement events arrived and returns them in order.
    @discardableResult
    func waitForEvents(_ count: Int) async throws -> [EntitlementEvent] {
        try await entitlements.waitForMessages(count, timeout: .seconds(60)).map {
            try EventDecoder.decode(EntitlementEvent.self, from: $0.value)
        }
    }
}

/// Runs the grant stage of the shipped pipeline file (as `StageAssembly` builds it for
/// `iap-grant`) against a fresh mock cluster, redis-server and simulator.
func withGrantStage(answering: Bool, _ body: (GrantStageFixture) async throws -> Void) async throws {
    try await withSimulator(bundleId: ConsumptionAnswerTests.bundleId) { simulator in
        let environment =
            answering
            ? simulator.appleEnvironment.merging(
                [
                    "IAP_CONSUMPTION_ANSWER": "true", "IAP_CONSUMPTION_CUSTOMER_CONSENTED": "true",
                    "IAP_CONSUMPTION_REFUND_PREFERENCE": "DECLINE",
                ], uniquingKeysWith: { $1 }) : [:]
        try await withStage(.grant, environment: environment) { stage in
            let entitlements = try stage.probe(try stage.spec.output("entitlements"))
            do {
                try await body(
                    GrantStageFixture(
                        simulator: simulator.client, producer: stage.producer, entitlements: entitlements,
                        input: try stage.spec.input("matched")))
            } catch {
                await entitlements.close()
                throw error
            }
            await entitlements.close()
        }
    }
}
