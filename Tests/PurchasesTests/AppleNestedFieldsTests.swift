import AppStoreModels
import Contracts
import Foundation
import Purchases
import TestSupport
import Testing

/// Apple's commitment and Advanced Commerce data travel with the purchase (issue 22 item 3, D59):
/// verify reads them from the signed transaction, grant puts them on the entitlement event, and
/// both survive the wire both ways the pipeline writes and reads it.
@Suite(.timeLimit(.minutes(1))) struct AppleNestedFieldsTests {
    @Test func commitmentAndAdvancedCommerceInfoReachTheEntitlement() async throws {
        let apple = try TestApple()
        var payload = TransactionSpec(
            productId: "pro.monthly", type: "Auto-Renewable Subscription", expiresDate: 1_765_000_000_000
        ).payload
        payload["commitmentInfo"] =
            [
                "billingPeriodNumber": 2, "commitmentExpiresDate": 1_790_000_000_000, "commitmentPrice": 119_880,
                "totalBillingPeriods": 12,
            ] as [String: any Sendable]
        let item: [String: any Sendable] = ["SKU": "levels.all", "price": 9_990, "displayName": "All levels"]
        payload["advancedCommerceInfo"] =
            [
                "items": [item], "period": "P1M", "requestReferenceId": "req-1", "taxCode": "C003-00-2",
            ] as [String: any Sendable]
        let verifier = try TransactionVerifier(
            configuration: try apple.configuration(), source: FakeAppleSource.unused,
            cache: InMemoryVerifiedTransactionCache(), gate: ScriptedGate())
        let outcome = try await verifier.verify(
            try Requests.purchase(.signedTransaction(try apple.chain.sign(payload))))
        let verified = try #require(outcome.records.first)
        #expect(verified.transaction.commitmentInfo?.billingPeriodNumber == 2)
        #expect(verified.transaction.commitmentInfo?.commitmentExpiresDate?.millisecondsSince1970 == 1_790_000_000_000)
        #expect(verified.transaction.advancedCommerceInfo?.items?.first?.sku == "levels.all")

        // Through iap.verified: the hand-written writer, then the hand-written reader.
        let wire = try EventDecoder.decode(VerifiedTransaction.self, from: try EventEncoder.encode(verified))
        #expect(wire == verified)

        let matched = MatchedTransaction(verified: wire, userId: "u-1", orderId: nil, matchedBy: .user)
        let event = try #require(GrantRules.decide(matched, state: nil).events.first)
        #expect(event.action == .grant)
        #expect(event.commitmentInfo == verified.transaction.commitmentInfo)
        #expect(event.advancedCommerceInfo == verified.transaction.advancedCommerceInfo)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try EventEncoder.encode(event))) as? [String: Any])
        let info = try #require(json["advancedCommerceInfo"] as? [String: Any])
        #expect((info["items"] as? [[String: Any]])?.first?["SKU"] as? String == "levels.all")
        #expect(
            (json["commitmentInfo"] as? [String: Any])?["commitmentExpiresDate"] as? String
                == "2026-09-21T14:13:20.000Z")
    }
}
