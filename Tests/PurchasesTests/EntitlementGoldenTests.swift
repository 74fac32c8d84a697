import AppStoreModels
import Contracts
import Foundation
import Purchases
import Testing

/// `iap.entitlement.v1` is a contract: the grant of a known purchase must encode to exactly
/// the golden document (field names, nulls, date format, stable eventId).
@Suite(.timeLimit(.minutes(2))) struct EntitlementGoldenTests {
    static func matchedConsumable() -> MatchedTransaction {
        let transaction = TransactionDetails(
            transactionId: "2000000000000001", originalTransactionId: "2000000000000001", bundleId: "com.example.game",
            productId: "gems_100", productType: .consumable, quantity: 3, environment: .sandbox,
            purchaseDate: Timestamp(millisecondsSince1970: 1_763_000_000_000),
            signedDate: Timestamp(millisecondsSince1970: 1_763_000_001_000), price: 1_990, currency: "USD",
            storefront: "USA"
        )
        let verified = VerifiedTransaction(
            transaction: transaction, hints: PublisherHints(eventId: "e-1", userId: "u-123"), source: .storeKit2,
            receivedAt: Timestamp(millisecondsSince1970: 1_763_000_002_000),
            verifiedAt: Timestamp(millisecondsSince1970: 1_763_000_003_000)
        )
        return MatchedTransaction(verified: verified, userId: "u-123", orderId: "o-456", matchedBy: .appAccountToken)
    }

    @Test func grantEncodesToTheGoldenDocument() throws {
        let decision = GrantRules.decide(Self.matchedConsumable(), state: nil)
        let event = try #require(decision.events.first)
        #expect(decision.events.count == 1)

        let golden =
            try JSONSerialization.jsonObject(
                with: Data(try Fixtures.text("golden/entitlement-grant-consumable.json").utf8)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: Data(try EventEncoder.encode(event))) as? NSDictionary
        #expect(encoded == golden)
        // Absent dates are explicit nulls, not missing keys.
        #expect(encoded?["expiresDate"] is NSNull)
        #expect(encoded?["revocationDate"] is NSNull)
        #expect(encoded?["offerType"] is NSNull)
        #expect(encoded?["autoRenewStatus"] is NSNull)
        #expect(encoded?["originalApplicationVersion"] is NSNull)
        #expect(encoded?["advancedCommerceInfo"] is NSNull)
        #expect(encoded?.count == 32)
    }

    @Test func goldenDocumentDecodesBack() throws {
        let event = try EventDecoder.decode(
            EntitlementEvent.self, from: Array(try Fixtures.text("golden/entitlement-grant-consumable.json").utf8))
        #expect(event == GrantRules.decide(Self.matchedConsumable(), state: nil).events.first)
        #expect(event.expiresDate == nil)
        #expect(event.action == .grant)
    }

    @Test func orderIdIsNullWhenMatchedByUser() throws {
        var matched = Self.matchedConsumable()
        matched.orderId = nil
        matched.matchedBy = .user
        let event = try #require(GrantRules.decide(matched, state: nil).events.first)
        let encoded = try #require(
            try JSONSerialization.jsonObject(with: Data(EventEncoder.encode(event))) as? [String: Any])
        #expect(encoded["orderId"] is NSNull)
        #expect(encoded["matchedBy"] as? String == "user")
    }
}
