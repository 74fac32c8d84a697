import AppStoreModels
import Foundation
import Processes
import TestSupport
import Testing

/// The 2026 fields of Apple's transaction and renewal info (`commitmentInfo`,
/// `advancedCommerceInfo`): a payload carrying every one of them decodes and encodes back field
/// for field, and Apple's own Python models (`app-store-server-library`) take the same payload
/// in and give the same back, so the names and shapes are Apple's (a misspelt field would be
/// dropped by one side and fail the comparison).
@Suite struct AppleModelFieldsTests {
    static let transaction = #"""
        {"transactionId":"2000000000000001","originalTransactionId":"2000000000000001","bundleId":"com.example.game","productId":"vip_yearly_commitment","purchaseDate":1780000000000,"type":"Auto-Renewable Subscription","environment":"Production","commitmentInfo":{"billingPeriodNumber":3,"commitmentExpiresDate":1811536000000,"commitmentPrice":119880,"totalBillingPeriods":12},"advancedCommerceInfo":{"descriptors":{"description":"Season pass","displayName":"Season"},"estimatedTax":990,"items":[{"SKU":"season_1","description":"Season one","displayName":"Season 1","offer":{"period":"P1M","periodCount":2,"price":4990,"reason":"ACQUISITION"},"price":9990,"refunds":[{"refundAmount":4990,"refundDate":1781000000000,"refundReason":"LEGAL","refundType":"PRORATED"}],"revocationDate":1781000000000}],"period":"P1M","requestReferenceId":"2f0f4e8c-3c2b-4b49-9a4f-2a1c5d1e7b10","taxCode":"C003-00-2","taxExclusivePrice":9000,"taxRate":"0.11"}}
        """#
    static let renewal = #"""
        {"originalTransactionId":"2000000000000001","autoRenewProductId":"vip_yearly_commitment","productId":"vip_yearly_commitment","autoRenewStatus":1,"environment":"Production","signedDate":1780000000000,"commitmentInfo":{"commitmentAutoRenewProductId":"vip_yearly_commitment","commitmentAutoRenewStatus":1,"commitmentRenewalBillingPlanType":"BILLED_UPFRONT","commitmentRenewalDate":1811536000000,"commitmentRenewalPrice":119880},"advancedCommerceInfo":{"consistencyToken":"token-1","descriptors":{"description":"Season pass","displayName":"Season"},"items":[{"SKU":"season_2","description":"Season two","displayName":"Season 2","offer":{"period":"P1M","periodCount":1,"price":4990,"reason":"RETENTION"},"price":9990,"priceIncreaseInfo":{"dependentSKUs":["season_1"],"price":10990,"status":"SCHEDULED"}}],"period":"P1M","requestReferenceId":"2f0f4e8c-3c2b-4b49-9a4f-2a1c5d1e7b10","taxCode":"C003-00-2"}}
        """#

    static func roundTrip<Payload: Codable>(_ type: Payload.Type, _ json: String) throws -> (NSDictionary, NSDictionary)
    {
        let original = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! NSDictionary
        let decoded = try JSONDecoder().decode(type, from: Data(json.utf8))
        let back = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(decoded)) as! NSDictionary
        return (original, back)
    }

    @Test func everyFieldComesBack() throws {
        let (transaction, transactionBack) = try Self.roundTrip(JWSTransactionDecodedPayload.self, Self.transaction)
        #expect(transactionBack == transaction)
        let (renewal, renewalBack) = try Self.roundTrip(JWSRenewalInfoDecodedPayload.self, Self.renewal)
        #expect(renewalBack == renewal)
        let decoded = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(Self.transaction.utf8))
        #expect(decoded.commitmentInfo?.totalBillingPeriods == 12)
        #expect(decoded.advancedCommerceInfo?.items?.first?.refunds?.first?.refundType == "PRORATED")
    }

    /// An external purchase token's `tokenType` (Apple's library fixture
    /// `signedExternalPurchaseTokenNotificationWithTokenType.json`): the one field of Apple's
    /// signed-data fixtures `iap jws verify` dropped when measured (docs/performance.md).
    @Test func anExternalPurchaseTokensTypeComesBack() throws {
        let notification = #"""
            {"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"UNREPORTED","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20","version":"2.0","signedDate":1698148900000,"externalPurchaseToken":{"externalPurchaseId":"b2158121-7af9-49d4-9561-1f588205523e","tokenCreationDate":1698148950000,"appAppleId":55555,"bundleId":"com.example","tokenType":"ACQUISITION"}}
            """#
        let (original, back) = try Self.roundTrip(ResponseBodyV2DecodedPayload.self, notification)
        #expect(back == original)
    }

    @Test func applesModelsTakeTheSamePayload() async throws {
        let run = try await ApplesPythonLibrary.check(
            Self.roundTripThroughApplesModels,
            files: ["transaction.json": Data(Self.transaction.utf8), "renewal.json": Data(Self.renewal.utf8)])
        #expect(run.exitCode == 0, "\(run.output)")
        #expect(run.output.contains("renewal round-trips through Apple's model"), "\(run.output)")
    }

    /// Structures each payload with Apple's model and unstructures it again; exits 1 on a difference.
    static let roundTripThroughApplesModels = """
        import json, sys
        from appstoreserverlibrary.models.LibraryUtility import _get_cattrs_converter
        from appstoreserverlibrary.models.JWSTransactionDecodedPayload import JWSTransactionDecodedPayload
        from appstoreserverlibrary.models.JWSRenewalInfoDecodedPayload import JWSRenewalInfoDecodedPayload
        failed = False
        for model, name in [(JWSTransactionDecodedPayload, "transaction"), (JWSRenewalInfoDecodedPayload, "renewal")]:
            payload = json.load(open(sys.argv[1] + "/" + name + ".json"))
            converter = _get_cattrs_converter(model)
            back = converter.unstructure(converter.structure(payload, model))
            if back != payload:
                failed = True
                print("FAILED", name, {k: (payload.get(k), back.get(k)) for k in set(payload) | set(back) if payload.get(k) != back.get(k)})
            else:
                print(name, "round-trips through Apple's model")
        sys.exit(1 if failed else 0)
        """
}
