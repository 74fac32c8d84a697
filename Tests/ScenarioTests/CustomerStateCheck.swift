import AppStoreModels
import Contracts
import Customers
import Foundation
import Kafka
import LocalStack
import ProductCatalog
import Testing

/// The customer state stage checked against its definition (D49): the latest record per customer
/// on `iap.customers` is what folding that customer's changes on `iap.entitlements` gives; and the
/// read API answers for each customer what rendering that fold with the catalog gives (the parts
/// that do not depend on the moment of the read: credits, lifetime entitlements, one-time
/// purchases, the last change, unlisted products).
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

        let api = try #require(ReadAPIClient(stack.endpoints), "the stack runs iap-api")
        let catalog = try CatalogFile.load(path: "pipelines/catalog.yaml")
        for record in folded.values.sorted(by: { $0.key < $1.key }) {
            let answered = try await api.customer(bundleId: record.bundleId, userId: record.userId)
            let expected = CustomerView(record, catalog: catalog, at: Timestamp(Date()))
            #expect(answered.credits == expected.credits, "\(record.key)")
            #expect(answered.lastEventId == expected.lastEventId, "\(record.key)")
            #expect(answered.unlistedProducts == expected.unlistedProducts, "\(record.key)")
            #expect(
                answered.purchases.filter { $0.expiresDate == nil }
                    == expected.purchases.filter { $0.expiresDate == nil },
                "\(record.key)")
            #expect(
                answered.entitlements.filter { $0.expiresDate == nil }
                    == expected.entitlements.filter { $0.expiresDate == nil }, "\(record.key)")
        }
    }
}
