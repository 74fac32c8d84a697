import AppStoreModels
import Contracts
import Customers
import Testing

@Suite struct CustomerRecordTests {
    typealias F = CustomerFixtures

    /// The rule: out-of-order and duplicate changes leave the record as if they had
    /// arrived in order once. Shuffled 200 times with repeats, by a seeded generator.
    @Test func shuffledAndRepeatedChangesLeaveTheRecordOfTheOrderedOnes() {
        let ordered = F.fold(F.history)
        var generator = SplitMix(seed: 0x1a2b_3c4d)
        for _ in 0..<200 {
            var events = F.history + F.history.filter { _ in generator.next() % 3 == 0 }
            events.shuffle(using: &generator)
            let record = F.fold(events)
            #expect(record == ordered)
            if record != ordered { return }
        }
    }

    @Test func theLatestChangeOfEachPurchaseCounts() {
        let record = F.fold(F.history)
        #expect(record.purchases["sub"]?.transactionId == "sub-3")
        #expect(record.purchases["sub"]?.since == F.at(days: 0), "access since the first period")
        #expect(record.purchases["ads"]?.status == .active, "the refund was reversed")
        #expect(record.purchases["gems-b"]?.status == .revoked)
        #expect(record.lastApplied?.eventId == "sub-3|renew|3", "the renewal on day 60 is the latest change")
    }

    @Test func aRepeatIsADuplicateAndAnOlderChangeIsSuperseded() {
        var record = F.fold(F.history)
        #expect(record.apply(F.history[2]) == .duplicate)
        #expect(record.apply(F.history[0]) == .superseded)
        #expect(record.apply(F.history[4]) == .superseded, "the refund reversed stays reversed")
    }

    /// Changes published before D48 have no number; they come in their order on the user's
    /// partition and are applied in it.
    @Test func changesWithoutANumberApplyInArrivalOrder() {
        let legacy = F.history.filter { $0.originalTransactionId == "ads" }.map { event in
            var event = event
            event.sequence = nil
            return event
        }
        #expect(F.fold(legacy).purchases["ads"]?.status == .active)
        #expect(F.fold(legacy.prefix(2)).purchases["ads"]?.status == .revoked)
    }

    @Test func theRecordRoundTripsAsItsTopicsEvent() throws {
        let record = F.fold(F.history)
        let bytes = try EventEncoder.encode(record)
        #expect(try EventDecoder.decode(CustomerRecord.self, from: bytes) == record)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"schema\":\"iap.customer.v1\""))
    }
}

/// A small seeded generator, so a failing shuffle can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
