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

/// One verify stage serving two apps (issue 22 item 5, D57), as `iap-verify` assembles it: each
/// app's bare ids are looked up with that app's token (the simulator answers another app's
/// transaction 4040010, as Apple does), each app's calls are budgeted on its own gate, and a
/// third app's purchase is dead-lettered `unknown_app` without a call to Apple.
@Suite(.serialized, .timeLimit(.minutes(3))) struct VerifyServesSeveralAppsTests {
    static let apps = ["com.example.game", "com.example.puzzle"]

    @Test func eachAppIsVerifiedWithItsOwnAppAndAStrangerIsAnUnknownApp() async throws {
        try await withSimulator(bundleId: Self.apps[0]) { simulator in
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("iap-apps-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let appsFile = directory.appendingPathComponent("apps.yaml").path
            let appAppleId = try #require(simulator.appleEnvironment["IAP_APP_APPLE_ID"])
            try ("apps:\n" + Self.apps.map { "  - {bundleId: \($0), appAppleId: \(appAppleId)}\n" }.joined())
                .write(toFile: appsFile, atomically: true, encoding: .utf8)
            var environment = simulator.appleEnvironment
            environment["IAP_BUNDLE_ID"] = nil
            environment["IAP_APP_APPLE_ID"] = nil
            environment["IAP_APPS"] = appsFile
            try await withStage(.verify, environment: environment) { stage in
                var purchases: [(bundleId: String, transactionId: String)] = []
                for (index, bundleId) in (Self.apps + Self.apps).enumerated() {
                    let id = try await simulator.client.purchase(
                        productId: "gems_\(index)", type: "Consumable", bundleId: bundleId
                    ).transactionId
                    purchases.append((bundleId, id))
                }
                let stranger = try await simulator.client.purchase(
                    productId: "gems_x", type: "Consumable", bundleId: "com.example.stranger"
                ).transactionId
                let callsBefore = try await simulator.client.stats().serverAPIRequests
                try await Self.publish(purchases + [("com.example.stranger", stranger)], to: stage)

                let verified = try stage.probe(try stage.spec.output("verified"))
                let rejected = try stage.probe(try #require(stage.spec.rejectTopic))
                let records = try await verified.waitForMessages(purchases.count, timeout: .seconds(60))
                let transactions = try records.map {
                    try EventDecoder.decode(VerifiedTransaction.self, from: $0.value).transaction
                }
                #expect(
                    Set(transactions.map { "\($0.bundleId) \($0.transactionId)" })
                        == Set(purchases.map { "\($0.bundleId) \($0.transactionId)" }))
                let refusals = try await rejected.waitForMessages(1, timeout: .seconds(30))
                let refusal = try #require(
                    try JSONSerialization.jsonObject(with: Data(refusals[0].value)) as? [String: Any])
                #expect(refusal["reason"] as? String == "unknown_app")
                #expect((refusal["detail"] as? String)?.contains("'com.example.stranger'") == true)
                #expect(
                    try await simulator.client.stats().serverAPIRequests - callsBefore == purchases.count,
                    "one lookup per served purchase, none for the stranger")
                let gates = try await withClient(try stage.redis.configuration()) { client in
                    try await client.send("KEYS", "iap:apple-gate:*").array?.compactMap(\.string) ?? []
                }
                #expect(
                    Set(gates)
                        == Set(Self.apps.map { "iap:apple-gate:{\($0):transactionInfo:Production}" }),
                    "each app's calls on its own gate")
                await rejected.close()
                await verified.close()
            }
        }
    }

    /// Bare transaction ids of each app as intake forwards them.
    static func publish(_ purchases: [(bundleId: String, transactionId: String)], to stage: StageRun) async throws {
        let topic = try stage.spec.input("verify")
        let records = try purchases.map { bundleId, id in
            let purchase = PurchaseEvent(
                eventId: "e-\(id)", bundleId: bundleId, userId: "u-\(id)", payload: .transactionId(id))
            guard
                case .forward(let request, let key, _) = IntakeRules().purchase(purchase, receivedAt: Timestamp(Date()))
            else { throw TestFailure("intake refused a bare id") }
            return KafkaRecord(topic: topic, key: Array(key.utf8), value: try EventEncoder.encode(request))
        }
        _ = try await stage.producer.send(records)
    }
}
