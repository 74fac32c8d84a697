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

    /// The canonical form is written and read byte by byte; the general RFC 3339 reader and the
    /// interpolated form are the reference. Instants around the edges of years 0 and 9999 leave
    /// the fast path, and must print as before.
    @Test func theCanonicalFormAgreesWithTheGeneralReader() throws {
        var generator = SystemRandomNumberGenerator()
        let year0: Int64 = -62_167_219_200_000
        let year10000: Int64 = 253_402_300_800_000
        let edges: [Int64] = [
            0, -1, 1, 951_782_400_000, year0, year0 - 1, year10000 - 1, year10000, .max / 2, .min / 2,
        ]
        let random = (0..<2000).map { _ in Int64.random(in: year0..<year10000, using: &generator) }
        for milliseconds in edges + random {
            let timestamp = Timestamp(millisecondsSince1970: milliseconds)
            let text = timestamp.iso8601
            var appended: [UInt8] = [1]
            timestamp.appendISO8601(to: &appended)
            #expect(appended == [1] + Array(text.utf8))
            if (year0..<year10000).contains(milliseconds) {
                #expect(text.utf8.count == 24)
                let general = try #require(RFC3339.parse(text, .pipeline))
                #expect(general.secondsSince1970 * 1000 + general.milliseconds == milliseconds)
                #expect(Timestamp(iso8601: text) == timestamp)
            }
        }
        #expect(Timestamp(millisecondsSince1970: year10000).iso8601 == "10000-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSince1970: -62_167_219_200_001).iso8601 == "00-1-12-31T23:59:59.999Z")
    }

    /// Texts of the canonical length that are not the canonical form of a date: each is
    /// decided as the general reader decides it.
    @Test(arguments: [
        "2026-02-30T00:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-00-10T00:00:00.000Z",
        "2026-11-00T00:00:00.000Z", "2026-11-21T24:00:00.000Z", "2026-11-21T23:60:00.000Z",
        "2026-11-21T23:59:60.000Z", "2026-11-21t21:00:00.000z", "2026-11-21T21:00:00.0000",
        "2026-11-21 21:00:00.000Z", "2026/11/21T21:00:00.000Z", "2026-11-21T21:00:00+00:00",
        "2026-11-2aT21:00:00.000Z", "-026-11-21T21:00:00.000Z", "2024-02-29T12:34:56.789Z",
        "2026-11-21T21:00:00.12Z", "2026-11-21T21:00:0\u{0}.000Z",
    ])
    func aTextOfTheCanonicalLengthIsDecidedAsTheGeneralReaderDecides(text: String) {
        let general = RFC3339.parse(text, .pipeline).map { $0.secondsSince1970 * 1000 + $0.milliseconds }
        #expect(Timestamp(iso8601: text)?.millisecondsSince1970 == general)
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
