import AppStoreModels
import Foundation
import Testing

/// The transaction payload's hand-written reader (D63) reads what `JSONDecoder` reads, field by
/// field, and leaves to it every payload it is not sure of.
@Suite struct HandReadPayloadTests {
    static func decoded(_ json: [UInt8]) -> JWSTransactionDecodedPayload? {
        try? JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json))
    }

    static func payload(ofJWS path: String) throws -> [UInt8] {
        let segment = try Vectors.text(path).split(separator: ".")[1]
        return try #require(Base64.decode(segment.utf8))
    }

    @Test func applesTransactionReadsAsJSONDecoderDecodesIt() throws {
        let json = try Self.payload(ofJWS: "jws/sandbox-consumable-transaction.jws")
        let read = try #require(JWSTransactionDecodedPayload.read(json))
        #expect(read == Self.decoded(json))
        #expect(read.transactionId == "2000000847061981")
    }

    @Test func everyFieldReadsAsJSONDecoderDecodesIt() throws {
        var full = JWSTransactionDecodedPayload()
        full.transactionId = "1"
        full.originalTransactionId = "2"
        full.webOrderLineItemId = "3"
        full.bundleId = "com.example.app"
        full.productId = "p\"1\\é"
        full.subscriptionGroupIdentifier = "g"
        full.purchaseDate = Timestamp(millisecondsSince1970: 1_700_000_000_123)
        full.originalPurchaseDate = Timestamp(millisecondsSince1970: -5)
        full.expiresDate = Timestamp(millisecondsSince1970: 0)
        full.quantity = Int32.max
        full.type = .autoRenewableSubscription
        full.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        full.inAppOwnershipType = InAppOwnershipType(rawValue: "PURCHASED")
        full.signedDate = Timestamp(millisecondsSince1970: 1_700_000_000_999)
        full.revocationReason = RevocationReason(rawValue: 1)
        full.revocationDate = Timestamp(millisecondsSince1970: 1_700_000_001_000)
        full.revocationType = RevocationType(rawValue: "REFUND_PRORATED")
        full.revocationPercentage = 500
        full.isUpgraded = false
        full.offerType = OfferType(rawValue: 2)
        full.offerIdentifier = "offer"
        full.environment = .sandbox
        full.storefront = "USA"
        full.storefrontId = "143441"
        full.transactionReason = .purchase
        full.currency = "JPY"
        full.price = -Int64.max
        full.offerDiscountType = OfferDiscountType(rawValue: "PAY_AS_YOU_GO")
        full.appTransactionId = "704"
        full.offerPeriod = "P1M"
        full.billingPlanType = BillingPlanType(rawValue: "MONTHLY")
        let json = Array(try JSONEncoder().encode(full))
        #expect(JWSTransactionDecodedPayload.read(json) == full)
        #expect(Self.decoded(json) == full)
    }

    @Test(arguments: [
        #"{}"#,
        #"{"transactionId":null,"quantity":null,"isUpgraded":null,"purchaseDate":null,"type":null}"#,
        #"{"future":{"a":[1,2.5,{"b":null}]},"transactionId":"1\u00e9","price":-0,"isUpgraded":true}"#,
    ])
    func payloadsTheReaderTakesDecodeTheSame(json: String) throws {
        let read = try #require(JWSTransactionDecodedPayload.read(Array(json.utf8)))
        #expect(read == Self.decoded(Array(json.utf8)))
    }

    @Test(arguments: [
        #"{"quantity":4294967296}"#, #"{"purchaseDate":1.5}"#, #"{"price":1e3}"#, #"{"price":-9223372036854775808}"#,
        #"{"transactionId":1}"#,
        #"{"transactionId":"1","transactionId":"2"}"#, #"{"commitmentInfo":null}"#, #"[]"#,
    ])
    func payloadsTheReaderIsNotSureOfAreLeftToJSONDecoder(json: String) {
        #expect(JWSTransactionDecodedPayload.read(Array(json.utf8)) == nil)
    }
}
