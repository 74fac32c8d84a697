import Pipeline
import Purchases
import Testing
import WorkerCommon

/// The one keyspace (decision D44): every key the pipeline writes, the runtime's and the state
/// stores', under one prefix and one hash-tag rule.
@Suite(.timeLimit(.minutes(2))) struct KeyspaceTests {
    /// Every kind of key under the default prefix, as the code before D44 spelled it (the
    /// table in `StateKeys.swift`, `BusinessKeys.doneMarker`, `StateGeneration`, `DelayQueue`):
    /// a deployment on the default prefix finds every key where it was.
    static func everyKey(_ keys: Keyspace) -> [(kind: String, key: String)] {
        let delay = keys.delayQueue("retry:verify")
        return [
            ("idempotency", keys.idempotency(stage: "grant", key: "2000000009|n:u-1")),
            ("generation", keys.generation(stage: "match")),
            ("delay due", delay.due),
            ("delay payloads", delay.payloads),
            ("delay waiting", delay.waiting),
            ("delay waiting bands", delay.waitingBands),
            ("order", keys.order("o-1")),
            ("order claim", keys.orderClaim("o-1")),
            ("order token", keys.orderToken("t")),
            ("owner", keys.owner("100")),
            ("waiting record", keys.waitingRecord("1|n:x")),
            ("waiting index by token", keys.waitingIndex(.appAccountToken("t"))),
            ("waiting index by order", keys.waitingIndex(.orderId("o-1"))),
            ("verified", keys.verifiedTransaction("1")),
            ("apple gate", keys.appleGate("transactionInfo", "Production")),
            ("entitlement", keys.entitlement("100")),
            ("consumption", keys.consumptionAnswer("7")),
            ("subscription expiries", keys.subscriptionExpiries),
            ("reconcile checkpoint", keys.reconcileCheckpoint("com.example:Production")),
            ("reconcile lease", keys.reconcileLease("com.example:Production")),
            ("reconcile sweep lease", keys.reconcileLease("sweep")),
        ]
    }

    @Test func everyKeyUnderTheDefaultPrefixIsWhereItWas() throws {
        let keys = Keyspace.standard
        #expect(keys.prefix == "iap:")
        #expect(try Keyspace() == keys)
        let expected: [String: String] = [
            "idempotency": "iap:idem:{grant:2000000009|n:u-1}",
            "generation": "iap:generation:{match}",
            "delay due": "iap:delay:{retry:verify}:due",
            "delay payloads": "iap:delay:{retry:verify}:payloads",
            "delay waiting": "iap:delay:{retry:verify}:waiting",
            "delay waiting bands": "iap:delay:{retry:verify}:waiting-bands",
            "order": "iap:order:{o-1}",
            "order claim": "iap:order:{o-1}:claim",
            "order token": "iap:order-token:{t}",
            "owner": "iap:owner:{100}",
            "waiting record": "iap:wait:record:{1|n:x}",
            "waiting index by token": "iap:wait:index:{token:t}",
            "waiting index by order": "iap:wait:index:{order:o-1}",
            "verified": "iap:verified:{1}",
            "apple gate": "iap:apple-gate:{transactionInfo:Production}",
            "entitlement": "iap:entitlement:{100}",
            "consumption": "iap:consumption:{7}",
            "subscription expiries": "iap:subscription-expiries",
            "reconcile checkpoint": "iap:reconcile:checkpoint:{com.example:Production}",
            "reconcile lease": "iap:reconcile:lease:{com.example:Production}",
            "reconcile sweep lease": "iap:reconcile:lease:{sweep}",
        ]
        let built = Self.everyKey(keys)
        #expect(built.count == expected.count)
        for (kind, key) in built {
            #expect(key == expected[kind], "\(kind)")
        }
    }

    @Test func aCustomPrefixReachesEveryKeyTheRuntimesIncluded() throws {
        let keys = try Keyspace(prefix: "staging:iap:")
        for (kind, key) in Self.everyKey(keys) {
            #expect(key.hasPrefix("staging:iap:"), "\(kind): \(key)")
            #expect(!key.hasPrefix("staging:iap:iap:"), "\(kind): \(key)")
        }
        #expect(keys.idempotency(stage: "grant", key: "k") == "staging:iap:idem:{grant:k}")
        #expect(keys.generation(stage: "grant") == "staging:iap:generation:{grant}")
        #expect(keys.delayQueue("retry:grant").due == "staging:iap:delay:{retry:grant}:due")
        #expect(keys.order("o-1") == "staging:iap:order:{o-1}")
        #expect(keys.appleGate("consumption", "Sandbox") == "staging:iap:apple-gate:{consumption:Sandbox}")
        #expect(keys.subscriptionExpiries == "staging:iap:subscription-expiries")
    }

    @Test func companionKeysShareTheirEntitysHashTag() throws {
        func tag(_ key: String) -> Substring? {
            guard let open = key.firstIndex(of: "{"), let close = key[open...].firstIndex(of: "}") else { return nil }
            return key[key.index(after: open)..<close]
        }
        for keys in [Keyspace.standard, try Keyspace(prefix: "a:b:")] {
            // An order and its claim, a delay queue's four keys: one slot each.
            #expect(tag(keys.order("o-1")) == "o-1")
            #expect(tag(keys.orderClaim("o-1")) == "o-1")
            #expect(Set(keys.delayQueue("retry:match").all.map(tag)) == ["retry:match"])
            #expect(tag(keys.idempotency(stage: "match", key: "t|e:1")) == "match:t|e:1")
            #expect(tag(keys.reconcileLease("s")) == tag(keys.reconcileCheckpoint("s")))
            #expect(tag(keys.subscriptionExpiries) == nil)
        }
    }

    @Test(arguments: ["iap:{x}:", "a}", "{"]) func prefixWithBracesIsRefused(_ prefix: String) {
        #expect(throws: Keyspace.InvalidPrefix.self) { try Keyspace(prefix: prefix) }
    }
}
