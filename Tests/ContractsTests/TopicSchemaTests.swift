import Contracts
import Foundation
import Purchases
import TestSupport
import Testing
import Topology

/// The JSON Schemas of `docs/schemas` against `Contracts`, so neither changes without the other
/// (decision D40): every shape a writer produces meets its topic's schema (check-jsonschema
/// decides), every enumeration lists exactly the values the Swift type declares, every property
/// a schema declares is written by some shape, and every topic of the pipeline file has one.
/// `EndToEndTests` check the records a real run wrote against the same files.
@Suite(.timeLimit(.minutes(2))) struct TopicSchemaTests {
    /// The pipeline's enumerations, as `Sources/Contracts` declares them.
    static func known<Value: RawRepresentable>(_ type: Value.Type) throws -> [Value] where Value.RawValue == String {
        try ContractSource.knownValues(of: "\(type)").compactMap(Value.init(rawValue:))
    }

    /// Each sample of `topic`, written both ways the pipeline writes (the hand-written fast path
    /// where there is one, and `Codable`).
    static func samples(for topic: String) throws -> [[UInt8]] {
        let sources = try Self.known(PurchaseSource.self)
        let statuses = try Self.known(EntitlementStatus.self)
        let rules = try Self.known(MatchedBy.self)
        let values: [any Encodable] =
            switch topic {
            case "iap.purchases": TopicSchemaSamples.purchases
            case "iap.orders": TopicSchemaSamples.orders
            case "iap.notifications": TopicSchemaSamples.notifications
            case "iap.verify": TopicSchemaSamples.verifyRequests(sources: sources)
            case "iap.verified": TopicSchemaSamples.verified(sources: sources)
            case "iap.matched": TopicSchemaSamples.matched(rules: rules, warnings: try Self.known(MatchWarning.self))
            case "iap.unmatched": TopicSchemaSamples.unmatched(reasons: try Self.known(UnmatchedReason.self))
            case "iap.entitlements":
                TopicSchemaSamples.entitlements(
                    actions: try Self.known(EntitlementAction.self), statuses: statuses, sources: sources, rules: rules)
            case "iap.ownership": TopicSchemaSamples.ownership
            case "iap.subscription-events": TopicSchemaSamples.subscriptionEvents(rules: rules)
            case "iap.entitlement-states": TopicSchemaSamples.states(statuses: statuses)
            case "iap.customers": TopicSchemaSamples.customers(statuses: statuses)
            case "iap.audit":
                TopicSchemaSamples.audit(
                    decisions: try Self.known(AuditDecision.self), actions: try Self.known(EntitlementAction.self),
                    rules: rules, warnings: try Self.known(MatchWarning.self))
            default: []
            }
        return try values.flatMap { value in
            [try EventEncoder.encode(value: value), try EventEncoder.encodeWithCodable(value)]
        }
    }

    static let contractTopics = [
        "iap.purchases", "iap.orders", "iap.notifications", "iap.verify", "iap.verified", "iap.matched",
        "iap.unmatched", "iap.entitlements", "iap.ownership", "iap.entitlement-states", "iap.customers",
        "iap.audit", "iap.subscription-events",
    ]

    @Test(arguments: contractTopics) func everyShapeAWriterProducesMeetsTheTopicSchema(topic: String) async throws {
        let samples = try Self.samples(for: topic)
        #expect(samples.count >= 2)
        let violations = try await TopicSchemas.violations(of: samples, topic: topic)
        for (index, problems) in violations.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(topic): \(String(decoding: samples[index], as: UTF8.self))\n\(problems)")
        }
    }

    /// Every property a schema declares appears in a sample: a field removed from Swift (or
    /// misspelled in the schema) leaves a declaration nothing writes.
    @Test(arguments: contractTopics) func everyPropertyTheSchemaDeclaresIsWritten(topic: String) throws {
        var written: Set<String> = []
        for sample in try Self.samples(for: topic) {
            written.formUnion(Self.paths(in: try JSONSerialization.jsonObject(with: Data(sample)), at: ""))
        }
        let declared = try SchemaDocument(topic: topic).declaredPaths()
        #expect(declared.subtracting(written).isEmpty, "\(topic) declares what no writer writes")
    }

    static func paths(in json: Any, at prefix: String) -> Set<String> {
        switch json {
        case let object as [String: Any]:
            return object.reduce(into: []) { result, entry in
                let path = prefix.isEmpty ? entry.key : "\(prefix)/\(entry.key)"
                result.insert(path)
                result.formUnion(Self.paths(in: entry.value, at: path))
            }
        case let array as [Any]:
            return array.reduce(into: []) { $0.formUnion(Self.paths(in: $1, at: "\(prefix)[]")) }
        default:
            return []
        }
    }

    /// The closed enumerations of the schemas are the pipeline's own value sets, exactly. (Apple's
    /// value sets stay open in the schemas: the pipeline passes on values Apple adds.)
    @Test func theSchemasEnumerateExactlyTheValuesContractsDeclares() throws {
        let checks: [(type: String, topic: String, path: [String])] = [
            ("EntitlementAction", "iap.entitlements", ["properties", "action"]),
            ("EntitlementStatus", "iap.entitlements", ["properties", "status"]),
            ("EntitlementStatus", "iap.entitlement-states", ["$defs", "state", "properties", "status"]),
            ("MatchedBy", "iap.entitlements", ["properties", "matchedBy"]),
            ("MatchedBy", "iap.subscription-events", ["properties", "matchedBy"]),
            ("MatchedBy", "iap.matched", ["properties", "matchedBy"]),
            ("MatchWarning", "iap.entitlements", ["properties", "warnings", "items"]),
            ("MatchWarning", "iap.matched", ["properties", "warnings", "items"]),
            ("PurchaseSource", "iap.entitlements", ["properties", "source"]),
            ("PurchaseSource", "iap.verify", ["properties", "source"]),
            ("PurchaseSource", "iap.verified", ["properties", "source"]),
            ("UnmatchedReason", "iap.unmatched", ["properties", "reason"]),
            ("ReasonCode", "iap.rejected", ["properties", "reason"]),
            ("AuditDecision", "iap.audit", ["properties", "decision"]),
            ("EntitlementAction", "iap.audit", ["properties", "effects", "items"]),
            ("MatchedBy", "iap.audit", ["properties", "matchedBy"]),
            ("MatchWarning", "iap.audit", ["properties", "warnings", "items"]),
        ]
        for check in checks {
            let declared = try ContractSource.knownValues(of: check.type)
            #expect(!declared.isEmpty)
            let listed = try SchemaDocument(topic: check.topic).enumeration(at: check.path)
            #expect(
                Set(listed) == Set(declared), "\(check.topic) \(check.path.joined(separator: "/")) vs \(check.type)")
        }
        #expect(
            try SchemaDocument(topic: "iap.verify").enumeration(at: ["properties", "kind"])
                == VerifyRequest.Kind.allCases.map(\.rawValue))
        // A publisher may claim only these (intake replaces any other with what the payload implies).
        #expect(
            Set(try SchemaDocument(topic: "iap.purchases").enumeration(at: ["properties", "source"]))
                == Set(PurchaseSource.publisherValues.map(\.rawValue)))
    }

    /// The schemas are strict: what the pipeline would refuse, or silently ignore (a misspelled
    /// field), fails them. Also proves the validator runs at all.
    @Test func theSchemasRefuseWhatTheirTopicMustNotCarry() async throws {
        func edited(_ json: String, _ edit: (inout [String: Any]) -> Void) throws -> [UInt8] {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            edit(&object)
            return Array(try JSONSerialization.data(withJSONObject: object))
        }
        let purchase = String(decoding: try EventEncoder.encode(ContractFixtures.purchases[3]), as: UTF8.self)
        let refusedPurchases = [
            try edited(purchase) { $0["orderID"] = "o-1" },  // misspelled: the pipeline would ignore it
            try edited(purchase) { $0["appReceipt"] = "MIIr" },  // two payloads
            try edited(purchase) { $0["transactionId"] = nil },  // none (and signedRenewalInfo alone)
            try edited(purchase) { $0["transactionId"] = "20000x" },
            try edited(purchase) { $0["userId"] = " " },
            try edited(purchase) { $0["appAccountToken"] = "not-a-uuid" },
            try edited(purchase) { $0["environment"] = "Xcode" },
            try edited(purchase) { $0["schema"] = "iap.purchase.v2" },
        ]
        let violations = try await TopicSchemas.violations(of: refusedPurchases, topic: "iap.purchases")
        #expect(violations.keys.sorted() == Array(refusedPurchases.indices))

        let entitlement = String(decoding: try #require(try Self.samples(for: "iap.entitlements").first), as: UTF8.self)
        let refusedEntitlements = [
            try edited(entitlement) { $0["storefrontId"] = "DEU" },
            try edited(entitlement) { $0["expiresDate"] = nil },  // every field is written, null when absent
            try edited(entitlement) { $0["action"] = "refund" },
            try edited(entitlement) { $0["status"] = NSNull() },
            try edited(entitlement) { $0["purchaseDate"] = "2025-11-13T02:13:20Z" },
            try edited(entitlement) { $0["eventId"] = "ev-1" },
            try edited(entitlement) { $0["sequence"] = 0 },  // a purchase's first change is 1
        ]
        let refused = try await TopicSchemas.violations(of: refusedEntitlements, topic: "iap.entitlements")
        #expect(refused.keys.sorted() == Array(refusedEntitlements.indices))
    }

    /// Every topic the pipeline file declares has a schema and every schema a topic; the topics
    /// it derives are dead letters (the source topic's records, unchanged), the runtime's
    /// journals of retries and waits (its own copies, not a contract), or a stage's retry topic
    /// (its inputs' records, unchanged but for the runtime's headers, D67).
    @Test func everyTopicOfThePipelineHasASchema() throws {
        let pipeline = try PipelineFile.load(
            path: TopicSchemas.directory + "/../../pipelines/iap.yaml")
        #expect(try TopicSchemas.topics() == pipeline.topics.map(\.name).sorted())
        let declared = Set(pipeline.topics.map(\.name))
        let journals = Set(pipeline.stages.map(\.journalTopic))
        let retryTopics = Set(pipeline.stages.compactMap(\.retryTopic))
        #expect(!retryTopics.isEmpty)
        for topic in pipeline.allTopics.map(\.name) where !declared.contains(topic) {
            let source = String(topic.dropLast(".dlq".count))
            let deadLetters =
                topic.hasSuffix(".dlq") && (declared.contains(source) || retryTopics.contains(source))
            #expect(
                deadLetters || journals.contains(topic) || retryTopics.contains(topic),
                "\(topic) is neither a dead-letter topic, a journal nor a retry topic")
        }
        #expect(Set(Self.contractTopics + ["iap.rejected"]) == declared)
    }
}
