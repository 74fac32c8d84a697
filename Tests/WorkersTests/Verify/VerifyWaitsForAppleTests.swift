import AppStoreModels
import Contracts
import Foundation
import Kafka
import LocalServices
import LocalStack
import Pipeline
import Purchases
import Redis
import TestSupport
import Testing
import Topology

@testable import Workers

/// Waiting for Apple is not failing (decision D36): the verify stage as `iap-verify` assembles
/// it, with a retry budget that two failures would spend, waits through Apple's 429s and its
/// own budget far longer than that budget lasts, and dead-letters nothing.
@Suite(.serialized, .timeLimit(.minutes(3))) struct VerifyWaitsForAppleTests {
    static let bundleId = "com.example.game"

    /// Two attempts 100–200 ms apart: without waits, anything slower than a blink is a dead letter.
    static func impatient(_ spec: inout StageSpec) {
        spec.retry = RetryPolicy(
            initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(200), multiplier: 2, jitter: 0, maxAttempts: 2
        )
    }

    @Test func applesRateLimitForLongerThanEveryRetryIsWaitedOutNotDeadLettered() async throws {
        try await withSimulator(bundleId: Self.bundleId) { simulator in
            // Nothing waited in place: every 429 parks the record, so each would spend an attempt
            // if waiting were failing.
            let environment = simulator.appleEnvironment.merging(
                ["IAP_APPLE_WAIT_IN_PLACE_MS": "1"], uniquingKeysWith: { $1 })
            try await withStage(.verify, environment: environment, adjust: Self.impatient) { stage in
                let ids = try await Self.purchases(5, on: simulator)
                // Apple answers every call 429 with a one-second Retry-After for four seconds.
                try await simulator.client.setFaults(["rate": 1, "kinds": ["429"], "retryAfterMs": 1_000])
                try await Self.publish(ids, to: stage)
                let dlq = try stage.probe(try stage.spec.input("verify") + ".dlq")
                let verified = try stage.probe(try stage.spec.output("verified"))
                _ = try await eventually("Apple's 429s were seen", timeout: .seconds(30)) {
                    try await simulator.client.stats().faults["429", default: 0] >= 2 ? true : nil
                }
                try await Task.sleep(for: .seconds(4))
                try await simulator.client.setFaults([:])

                let records = try await verified.waitForMessages(5, timeout: .seconds(60))
                #expect(Set(try records.map { try Self.transactionId($0) }) == Set(ids))
                try await Task.sleep(for: .seconds(2))
                #expect(dlq.messages.isEmpty, "nothing dead-lettered")
                let stats = try await simulator.client.stats()
                #expect(stats.faults["429", default: 0] >= 2)
                #expect(stats.callsBeforeRetryAfter == 0, "no call before Apple's Retry-After")
                await dlq.close()
                await verified.close()
            }
        }
    }

    /// Our own budget of 4 calls/s over 30 bare ids at once: most wait seconds for their slot
    /// (parked, counted as waiting for `apple:transactionInfo:Production`), none is charged an
    /// attempt, all are verified.
    @Test func aBacklogWaitsForItsSlotsAndIsVerifiedWhole() async throws {
        try await withSimulator(bundleId: Self.bundleId) { simulator in
            let environment = simulator.appleEnvironment.merging(
                ["IAP_APPLE_RATE_LIMIT": "4", "IAP_APPLE_WAIT_IN_PLACE_MS": "100"], uniquingKeysWith: { $1 })
            try await withStage(.verify, environment: environment, adjust: Self.impatient) { stage in
                let ids = try await Self.purchases(30, on: simulator)
                try await Self.publish(ids, to: stage)
                let dlq = try stage.probe(try stage.spec.input("verify") + ".dlq")
                let verified = try stage.probe(try stage.spec.output("verified"))
                let store = try await withClient(try stage.redis.configuration()) { client in
                    try await eventually("records wait for their slots", timeout: .seconds(30)) {
                        () -> WaitingSummary? in
                        let waiting = try await RedisRetryStore(client: client, stage: "verify").waiting()
                        return waiting.counts["apple:transactionInfo:Production", default: 0] > 5 ? waiting : nil
                    }
                }
                #expect(store.oldestSince != nil)
                let records = try await verified.waitForMessages(30, timeout: .seconds(90))
                #expect(Set(try records.map { try Self.transactionId($0) }) == Set(ids))
                try await Task.sleep(for: .seconds(2))
                #expect(dlq.messages.isEmpty, "nothing dead-lettered")
                await dlq.close()
                await verified.close()
            }
        }
    }

    static func purchases(_ count: Int, on simulator: SimulatorFixture) async throws -> [String] {
        var ids: [String] = []
        for index in 0..<count {
            ids.append(
                try await simulator.client.purchase(
                    productId: "gems_\(index)", type: "Consumable", bundleId: bundleId
                ).transactionId)
        }
        return ids
    }

    /// Bare transaction ids as intake forwards them.
    static func publish(_ ids: [String], to stage: StageRun) async throws {
        try await VerifyServesSeveralAppsTests.publish(ids.map { (bundleId, $0) }, to: stage)
    }

    static func transactionId(_ message: KafkaMessage) throws -> String {
        try EventDecoder.decode(VerifiedTransaction.self, from: message.value).transaction.transactionId
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
