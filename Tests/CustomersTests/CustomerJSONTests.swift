import AppStoreModels
import Basics
import Contracts
import Customers
import ProductCatalog
import Testing

/// The hand-written JSON of the record and the view (D17) against `Codable`: the same bytes
/// written, the same values read, for records with every optional field and purchase keys of
/// different lengths (so the key order is tested, not assumed).
@Suite struct CustomerJSONTests {
    typealias F = CustomerFixtures

    static var record: CustomerRecord {
        var grace = F.change(
            .renew, "vip_monthly", .autoRenewableSubscription, purchase: "9", transaction: "9-2", sequence: 2,
            purchased: 30, expires: 60, status: .gracePeriod, autoRenew: .on)
        grace.gracePeriodExpiresDate = F.at(days: 66)
        grace.orderId = "order-\"quoted\""
        let legacy: EntitlementEvent = {
            var event = F.change(.grant, "gems_100", .consumable, purchase: "100000", sequence: nil, purchased: 1)
            event.productType = nil
            return event
        }()
        return F.fold(F.history + [grace, legacy])
    }

    @Test func theRecordIsWrittenAndReadAsCodableWouldAndBack() throws {
        let record = Self.record
        let fast = try EventEncoder.encode(record)
        #expect(fast == (try EventEncoder.encodeWithCodable(record)))
        var reader = JSONReader(fast)
        #expect(try CustomerRecord(from: &reader) == record)
        #expect(try EventDecoder.decodeWithCodable(CustomerRecord.self, from: fast) == record)
    }

    @Test func theViewIsWrittenAsCodableWould() throws {
        for at in [F.at(days: 10), F.at(days: 63), F.at(days: 100)] {
            for catalog in [F.catalog, ProductCatalog.empty] {
                let view = CustomerView(Self.record, catalog: catalog, at: at)
                #expect(try EventEncoder.encode(value: view) == (try EventEncoder.encodeWithCodable(view)))
            }
        }
    }
}
