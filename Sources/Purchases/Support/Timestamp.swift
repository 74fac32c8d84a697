public import AppStore
import Basics
public import Foundation

/// An instant in the pipeline's own events: whole milliseconds since 1970 (UTC), written as an
/// ISO-8601 string with milliseconds (`2026-11-21T21:00:00.000Z`).
///
/// Integer milliseconds rather than `Date` so Apple's signed dates round-trip exactly (a `Date`
/// built from `Double` can print `…560.999`), and the string form is computed with integer
/// arithmetic for the same reason. Decoding accepts any RFC 3339 offset and 0–9 fraction digits.
public struct Timestamp: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Truncates to the millisecond.
    public init(_ date: Date) {
        self.millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    public init(_ appleDate: AppStoreDate) {
        self.millisecondsSince1970 = appleDate.millisecondsSince1970
    }

    public var date: Date { Date(timeIntervalSince1970: Double(self.millisecondsSince1970) / 1000) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.millisecondsSince1970 < rhs.millisecondsSince1970 }

    /// This instant moved by `duration` (millisecond precision).
    public func advanced(by duration: Duration) -> Timestamp {
        Timestamp(millisecondsSince1970: self.millisecondsSince1970 + duration.milliseconds(rounding: .towardZero))
    }

    /// How long after `earlier` this instant is (negative when it is before).
    public func duration(since earlier: Timestamp) -> Duration {
        .milliseconds(self.millisecondsSince1970 - earlier.millisecondsSince1970)
    }

    // MARK: ISO 8601

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, always UTC and always with three fraction digits.
    public var iso8601: String {
        let (seconds, millis) = self.millisecondsSince1970.floorDivided(by: 1000)
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T"
            + "\(Self.pad(secondOfDay / 3600, 2)):\(Self.pad(secondOfDay % 3600 / 60, 2)):\(Self.pad(secondOfDay % 60, 2))"
            + ".\(Self.pad(millis, 3))Z"
    }

    /// Parses RFC 3339 (`2026-11-21T21:00:00Z`, `…T21:00:00.5+01:00`); nil for anything else.
    public init?(iso8601 text: String) {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
              let day = scanner.number(2), scanner.skip("T") || scanner.skip("t"),
              let hour = scanner.number(2), scanner.skip(":"), let minute = scanner.number(2), scanner.skip(":"),
              let second = scanner.number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }

        var millis: Int64 = 0
        if scanner.skip(".") {
            let digits = scanner.digits()
            guard (1...9).contains(digits.count) else { return nil }
            for (index, digit) in digits.prefix(3).enumerated() { millis += Int64(digit) * [100, 10, 1][index] }
        }
        var offsetSeconds: Int64 = 0
        if !(scanner.skip("Z") || scanner.skip("z")) {
            let sign: Int64
            if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else { return nil }
            guard let offsetHours = scanner.number(2), scanner.skip(":"), let offsetMinutes = scanner.number(2),
                  offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard scanner.isAtEnd else { return nil }

        let days = Self.days(fromCivil: year, month, day)
        // Reject dates such as 02-30 that the day arithmetic would silently roll over.
        guard Self.civil(fromDays: days) == (year, month, day) else { return nil }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        self.millisecondsSince1970 = seconds * 1000 + millis
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO-8601 (RFC 3339) date-time")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.iso8601)
    }

    public var description: String { self.iso8601 }

    // Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, exact integers).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// Reads fixed-width ASCII digits and literal characters from UTF-8 bytes.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { self.index == self.bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: character) else { return false }
        self.index += 1
        return true
    }

    mutating func number(_ width: Int) -> Int64? {
        guard self.index + width <= self.bytes.count else { return nil }
        var value: Int64 = 0
        for byte in self.bytes[self.index..<(self.index + width)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        self.index += width
        return value
    }

    mutating func digits() -> [UInt8] {
        var result: [UInt8] = []
        while self.index < self.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self.bytes[self.index]) {
            result.append(self.bytes[self.index] - UInt8(ascii: "0"))
            self.index += 1
        }
        return result
    }
}

extension Int64 {
    /// Quotient and non-negative remainder (floor division), so instants before 1970 format correctly.
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = self >= 0 ? self / divisor : -((-self - 1) / divisor) - 1
        return (quotient, self - quotient * divisor)
    }
}
