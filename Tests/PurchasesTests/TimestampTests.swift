import AppStoreModels
import Contracts
import Foundation
import Purchases
import Testing

@Suite(.timeLimit(.minutes(2))) struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (Int64(1_738_645_560_000), "2025-02-04T05:06:00.000Z"),
        (Int64(1_763_000_001_234), "2025-11-13T02:13:21.234Z"),
        (Int64(951_782_400_001), "2000-02-29T00:00:00.001Z"),
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
    ])
    func formatsWithMillisecondsInUTC(milliseconds: Int64, text: String) {
        let timestamp = Timestamp(millisecondsSince1970: milliseconds)
        #expect(timestamp.iso8601 == text)
        #expect(Timestamp(iso8601: text) == timestamp)
    }

    @Test func parsesOffsetsAndFractionLengths() {
        #expect(Timestamp(iso8601: "2026-11-21T21:00:00Z")?.iso8601 == "2026-11-21T21:00:00.000Z")
        #expect(Timestamp(iso8601: "2026-11-21T22:30:00.5+01:30")?.iso8601 == "2026-11-21T21:00:00.500Z")
        #expect(Timestamp(iso8601: "2026-11-21T20:00:00.123456789-01:00")?.iso8601 == "2026-11-21T21:00:00.123Z")
        #expect(Timestamp(iso8601: "2026-11-21t21:00:00z")?.iso8601 == "2026-11-21T21:00:00.000Z")
    }

    @Test(arguments: [
        "", "2026-11-21", "2026-02-30T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T21:00:00",
        "2026-11-21T21:00:00.Z", "2026-11-21T21:00:00Z trailing", "1763000000000",
    ])
    func refusesWhatIsNotRFC3339(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test func decodingReportsTheBadValue() throws {
        let data = Data(#"{"schema":"iap.notification.v1","receivedAt":"yesterday","signedPayload":"x"}"#.utf8)
        #expect(throws: Rejection(.malformedEvent, "")) { try EventDecoder.decode(NotificationEvent.self, from: data) }
        do throws(Rejection) {
            _ = try EventDecoder.decode(NotificationEvent.self, from: data)
        } catch {
            #expect(error.detail.contains("field 'receivedAt'"))
            #expect(error.detail.contains("yesterday"))
        }
    }

    @Test func arithmeticInMilliseconds() {
        let start = Timestamp(millisecondsSince1970: 1_000)
        #expect(start.advanced(by: .seconds(2)).millisecondsSince1970 == 3_000)
        #expect(start.advanced(by: .milliseconds(1500)).duration(since: start) == .milliseconds(1500))
    }
}
