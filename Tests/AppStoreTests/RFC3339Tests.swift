import AppStoreModels
import Foundation
import Testing

@testable import AppStore

/// The one RFC 3339 parser reads the pipeline's timestamps strictly and receipt dates with the
/// tolerances the receipt decoder always had.
@Suite(.timeLimit(.minutes(2))) struct RFC3339Tests {
    @Test(arguments: ["2026-11-21 21:00:00Z", "2026-11-21T21:00:60Z", "2026-02-30T00:00:00Z", "2026-11-21T21:00:00.Z"])
    func receiptsAreReadLeniently(text: String) {
        #expect(RFC3339.parse(text, .receipt) != nil)
        #expect(RFC3339.parse(text, .pipeline) == nil)
    }

    @Test func bothDialectsAgreeOnTheCommonForm() throws {
        let pipeline = try #require(RFC3339.parse("2026-11-21T22:00:00.750+01:00", .pipeline))
        let receipt = try #require(RFC3339.parse("2026-11-21T22:00:00.750+01:00", .receipt))
        #expect(pipeline.secondsSince1970 == 1_795_294_800 && pipeline.milliseconds == 750)
        #expect(receipt.secondsSince1970 == pipeline.secondsSince1970 && receipt.fractionDigits == [7, 5, 0])
        #expect(RFC3339.date(from: "2026-11-21T21:00:00.5Z") == Date(timeIntervalSince1970: 1_795_294_800.5))
    }
}
