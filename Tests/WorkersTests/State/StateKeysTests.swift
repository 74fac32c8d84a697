import Purchases
import Testing
import WorkerCommon

@Suite(.timeLimit(.minutes(2))) struct StateKeysTests {
    @Test func defaultLayout() {
        let keys = StateKeys.standard
        #expect(keys.prefix == "iap:")
        #expect(keys.order("o-1") == "iap:order:{o-1}")
        #expect(keys.orderClaim("o-1") == "iap:order:{o-1}:claim")
        #expect(keys.orderToken("t") == "iap:order-token:{t}")
        #expect(keys.owner("100") == "iap:owner:{100}")
        #expect(keys.waitingRecord("1|n:x") == "iap:wait:record:{1|n:x}")
        #expect(keys.waitingIndex(.appAccountToken("t")) == "iap:wait:index:{token:t}")
        #expect(keys.waitingIndex(.orderId("o-1")) == "iap:wait:index:{order:o-1}")
        #expect(keys.verifiedTransaction("1") == "iap:verified:{1}")
        #expect(keys.entitlement("100") == "iap:entitlement:{100}")
        #expect(keys.appleGate("transactionInfo", "Production") == "iap:apple-gate:{transactionInfo:Production}")
    }

    @Test func customPrefixAndHashTagsOfCompanionKeys() throws {
        let keys = try StateKeys(prefix: "staging:iap:")
        #expect(keys.order("o-1") == "staging:iap:order:{o-1}")
        #expect(keys.appleGate("consumption", "Sandbox") == "staging:iap:apple-gate:{consumption:Sandbox}")
        // An order and its claim share the hash tag, hence the Redis Cluster slot.
        func tag(_ key: String) -> Substring? {
            guard let open = key.firstIndex(of: "{"), let close = key[open...].firstIndex(of: "}") else { return nil }
            return key[key.index(after: open)..<close]
        }
        #expect(tag(keys.order("o-1")) == "o-1")
        #expect(tag(keys.orderClaim("o-1")) == "o-1")
    }

    @Test(arguments: ["iap:{x}:", "a}", "{"]) func prefixWithBracesIsRefused(_ prefix: String) {
        #expect(throws: StateKeys.InvalidPrefix.self) { try StateKeys(prefix: prefix) }
    }
}
