import Contracts
import Kafka
import TestSupport
import Testing

@testable import Pipeline

/// The reject topic's records against `docs/schemas/iap.rejected.schema.json`: every stage,
/// an event embedded as JSON, one that is not JSON and one cut for its size. (That the schema's
/// reason codes are exactly `ReasonCode`'s: `ContractsTests.TopicSchemaTests`.)
@Suite(.timeLimit(.minutes(2))) struct RejectRecordSchemaTests {
    @Test func everyRejectRecordMeetsTheRejectedTopicSchema() async throws {
        let values = [
            #"{"schema":"iap.purchase.v1","eventId":"e/1"}"#, "not json/", String(repeating: "x", count: 70_000),
        ]
        let reasons: [ReasonCode] = [.malformedEvent, .unsupportedSchema, .invalidSignature, .ownershipConflict]
        var records: [[UInt8]] = []
        for stage in ["intake", "verify", "match", "grant"] {
            for (value, reason) in zip(values + values, reasons) {
                let message = KafkaMessage(
                    topic: "iap.purchases", partition: 0, offset: 1, key: nil, value: Array(value.utf8))
                records.append(
                    RejectRecord.make(
                        for: message, reason: reason, detail: "why", stage: stage, topic: "iap.rejected",
                        group: "iap-\(stage)"
                    ).value)
            }
        }
        let violations = try await TopicSchemas.violations(of: records, topic: "iap.rejected")
        #expect(violations.isEmpty, "\(violations)")
    }
}
