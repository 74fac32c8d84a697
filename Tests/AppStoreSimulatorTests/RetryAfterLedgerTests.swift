import Testing

@testable import AppStoreSimulator

@Suite("Retry-After ledger")
struct RetryAfterLedgerTests {
    @Test("early strictly before the instant; at the instant a call is on time and the entry goes")
    func boundary() {
        var ledger = RetryAfterLedger()
        let unknown = ledger.isEarly("/sandbox/a", at: 0)
        ledger.record("/sandbox/a", until: 1_000, now: 0)
        let before = ledger.isEarly("/sandbox/a", at: 999)
        let otherResource = ledger.isEarly("/sandbox/b", at: 999)
        let atInstant = ledger.isEarly("/sandbox/a", at: 1_000)
        #expect(!unknown)
        #expect(before)
        #expect(!otherResource)
        #expect(!atInstant)
        #expect(ledger.count == 0)
    }

    @Test("a later instant is kept when an earlier one is recorded after it")
    func keepsLaterInstant() {
        var ledger = RetryAfterLedger()
        ledger.record("/sandbox/a", until: 2_000, now: 0)
        ledger.record("/sandbox/a", until: 1_000, now: 0)
        let early = ledger.isEarly("/sandbox/a", at: 1_500)
        #expect(early)
    }

    @Test("resources whose wait is over are forgotten, so memory follows the live waits only")
    func staysBounded() {
        var ledger = RetryAfterLedger()
        // Each resource is told to wait 10 ms and never asked again: at most 10 are live at once.
        for step in 0..<10_000 {
            ledger.record("/sandbox/inApps/v1/transactions/\(step)", until: Int64(step) + 10, now: Int64(step))
        }
        #expect(ledger.count < 128)
        let lastStillWaits = ledger.isEarly("/sandbox/inApps/v1/transactions/9999", at: 10_000)
        #expect(lastStillWaits)
    }
}
