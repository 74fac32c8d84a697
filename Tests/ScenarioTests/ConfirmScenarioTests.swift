import Foundation
import Kafka
import LocalStack
import PipelineHarness
import TestSupport
import Testing

extension ScenarioTests {
    /// The confirm stage in the embedded stack (D55), in process: what grant committed is told to
    /// Apple after the fact, and Apple failing delays only that, never the grant.
    @Suite(.timeLimit(.minutes(5))) struct ConfirmScenarioTests {
        /// The dev stack turns finishing on; with a token scheme, a purchase matched by its
        /// publisher's user hint gets that user's token at Apple, and its renewals carry it.
        static let tokenSettings = ["IAP_TOKEN_SCHEME": "numericPaddedF", "IAP_CONFIRM_APP_ACCOUNT_TOKEN": "true"]

        @Test func aGrantIsFinishedAndItsUsersTokenSetAtApple() async throws {
            try await ReconcilingStack.with(.inProcess, environment: Self.tokenSettings) { pipeline in
                let purchase = try await pipeline.subscribe("4242")
                _ = try await eventually("Apple was told the purchase was finished", timeout: .seconds(60)) {
                    try await pipeline.simulator.isFinished(transactionId: purchase.transactionId) ? true : nil
                }
                _ = try await eventually(
                    "the user's token set on the purchase line", timeout: .seconds(60), every: .seconds(1)
                ) {
                    let renewal = try await pipeline.simulator.renew(
                        originalTransactionId: purchase.originalTransactionId)
                    let token = try Self.appAccountToken(renewal.signedTransaction)
                    return token == "ffffffff-ffff-ffff-ffff-ffffffff4242" ? true : nil
                }
            }
        }

        /// Apple failing every Server API call: the purchase is granted at once, and both calls
        /// (Finish Transaction, Set App Account Token) are made once Apple answers again.
        @Test func appleFailingDelaysTheConfirmationsNeverTheGrant() async throws {
            try await ReconcilingStack.with(.inProcess, environment: Self.tokenSettings) { pipeline in
                try await pipeline.simulator.setFaults(["rate": 1, "kinds": ["5000001"]])
                let purchase = try await pipeline.subscribe("7007")
                #expect(
                    try await pipeline.simulator.isFinished(transactionId: purchase.transactionId) == false,
                    "granted while Apple fails every call")
                try await pipeline.simulator.setFaults([:])
                _ = try await eventually("finished once Apple answers again", timeout: .seconds(90)) {
                    try await pipeline.simulator.isFinished(transactionId: purchase.transactionId) ? true : nil
                }
                _ = try await eventually(
                    "the token set once Apple answers again", timeout: .seconds(60), every: .seconds(1)
                ) {
                    let renewal = try await pipeline.simulator.renew(
                        originalTransactionId: purchase.originalTransactionId)
                    return try Self.appAccountToken(renewal.signedTransaction) == "ffffffff-ffff-ffff-ffff-ffffffff7007"
                        ? true : nil
                }
            }
        }

        /// Confirm's retries come back through its own topic (D67): every backend reading
        /// `iap.entitlements` sees the grant once, however often confirm had to try Apple again.
        @Test func confirmsRetriesNeverRepeatTheEntitlementToItsReaders() async throws {
            try await ReconcilingStack.with(.inProcess, environment: Self.tokenSettings) { pipeline in
                try await pipeline.simulator.setFaults(["rate": 1, "kinds": ["5000001"]])
                let purchase = try await pipeline.subscribe("7117")
                _ = try await eventually("confirm tried Apple three times", timeout: .seconds(60)) {
                    try await pipeline.simulator.stats().faults["5000001", default: 0] >= 3 ? true : nil
                }
                try await pipeline.simulator.setFaults([:])
                _ = try await eventually("finished once Apple answers again", timeout: .seconds(90)) {
                    try await pipeline.simulator.isFinished(transactionId: purchase.transactionId) ? true : nil
                }
                try await pipeline.stack.waitUntilDrained()
                try await pipeline.observer.waitUntilCaughtUp()
                let grant = try #require(
                    pipeline.changes.first { $0.transactionId == purchase.transactionId && $0.action == "grant" })
                let copies = pipeline.observer.records.filter { record in
                    let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any]
                    return object?["eventId"] as? String == grant.eventId
                }
                #expect(copies.count == 1, "iap.entitlements carried the grant \(copies.count) times")
            }
        }

        static func appAccountToken(_ jws: String) throws -> String? {
            let parts = jws.split(separator: ".")
            guard parts.count == 3 else { return nil }
            var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(
                of: "_", with: "/")
            while payload.count % 4 != 0 { payload += "=" }
            let object =
                try JSONSerialization.jsonObject(with: Data(base64Encoded: payload) ?? Data()) as? [String: Any]
            return object?["appAccountToken"] as? String
        }
    }
}
