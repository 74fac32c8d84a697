import AppStoreModels
import Contracts
import Testing

/// Each business key's exact form on fixed values: a change here changes what counts as a
/// duplicate in some layer (and, for the eventId, what consumers of `iap.entitlements` see).
@Suite(.timeLimit(.minutes(2))) struct BusinessKeysTests {
    @Test func intakeAndVerifyKeys() {
        var request = ContractFixtures.verifyRequest
        #expect(request.idempotencyKey == "notification:n-1")
        request.kind = .signedTransaction
        #expect(request.dedupeKey == "0fc83094d756ce81a447f1161a2caa56b80b8d18c841638e0d66c0f95a5be60d")
        #expect(request.idempotencyKey == "purchase:\(request.dedupeKey)")
    }

    @Test func matchAndGrantRecordKeys() {
        var verified = ContractFixtures.verified
        #expect(verified.recordKey == "2000000000000002|n:n-1")
        #expect(ContractFixtures.matched.idempotencyKey == "2000000000000002|n:n-1")
        verified.notification = nil
        #expect(verified.recordKey == "2000000000000002|e:e-1")
    }

    @Test func effectKeysAndEventIds() {
        let grant = BusinessKeys.effectKey(transactionId: "2000000000000001", effect: .grant)
        #expect(grant == "2000000000000001|grant")
        let renew = BusinessKeys.effectKey(
            transactionId: "2000000000000002", effect: .renew, date: Timestamp(millisecondsSince1970: 1_765_000_000_999)
        )
        #expect(renew == "2000000000000002|renew|1765000000999")
        // Revocations, reinstatements and grace periods name Apple's date of them (D31).
        let five = Timestamp(millisecondsSince1970: 5)
        #expect(BusinessKeys.effectKey(transactionId: "1", effect: .revoke, date: five) == "1|revoke|5")
        #expect(BusinessKeys.effectKey(transactionId: "1", effect: .reinstate, date: five) == "1|reinstate|5")
        #expect(BusinessKeys.effectKey(transactionId: "1", effect: .grace, date: five) == "1|grace|5")
        // A grant and an expiry happen once per transaction: no date.
        #expect(BusinessKeys.effectKey(transactionId: "1", effect: .grant, date: five) == "1|grant")
        #expect(BusinessKeys.effectKey(transactionId: "1", effect: .expire, date: five) == "1|expire")
        #expect(BusinessKeys.effectKey(transactionId: "1", effect: .revoke) == "1|revoke")
        #expect(BusinessKeys.entitlementEventId(effectKey: grant) == "d81e035e-0585-88a0-bab5-295e45e54403")
    }
}
