import Contracts
import Customers
import Kafka
import LocalStack
import Testing

/// The customer state stage checked against its definition (D49): the latest record per customer
/// on `iap.customers` is what folding that customer's changes on `iap.entitlements` gives.
enum CustomerStateCheck {
    static func expectEachCustomersRecordIsTheFoldOfTheirChanges(_ stack: LocalStack) async throws {
        let written = try await WrittenRecords.read(stack, topics: ["iap.entitlements", "iap.customers"])
        func inOrder(_ topic: String) -> [KafkaMessage] {
            (written[topic] ?? []).sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
        }
        var folded: [String: CustomerRecord] = [:]
        for message in inOrder("iap.entitlements") {
            let change = try EventDecoder.decode(EntitlementEvent.self, from: message.value)
            let key = CustomerRecord.key(bundleId: change.bundleId, userId: change.userId)
            _ = folded[key, default: CustomerRecord(bundleId: change.bundleId, userId: change.userId)].apply(change)
        }
        var published: [String: CustomerRecord] = [:]
        for message in inOrder("iap.customers") {
            let record = try EventDecoder.decode(CustomerRecord.self, from: message.value)
            #expect(message.key.map { String(decoding: $0, as: UTF8.self) } == record.key)
            published[record.key] = record
        }
        #expect(!folded.isEmpty, "the run published no entitlement change")
        #expect(published.keys.sorted() == folded.keys.sorted())
        for (key, record) in folded where published[key] != record {
            Issue.record("\(key): iap.customers holds \(String(describing: published[key])), the fold gives \(record)")
        }
    }
}
