import Foundation

/// The one RFC 3339 parser (`YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`), written without a
/// formatter: receipts hold hundreds of dates and the pipeline parses every timestamp of every
/// event, and `ISO8601DateFormatter` is neither cheap nor lenient about fractions.
///
/// Two dialects read the same grammar with different tolerances (``Dialect``): the pipeline's
/// timestamps (`Timestamp(iso8601:)`) and the dates inside App Store receipts.
package enum RFC3339 {
    /// How strictly a text is read.
    package struct Dialect: Sendable {
        /// Characters accepted between date and time.
        var separators: Set<UInt8>
        /// How many fraction digits may follow a `.`.
        var fractionDigits: ClosedRange<Int>
        /// The largest second accepted (60 admits a leap second).
        var maximumSecond: Int64
        /// Refuse dates such as 02-30 (otherwise rolled over to the next month) and offsets
        /// beyond ±23:59.
        var validatesRanges: Bool

        /// The pipeline's own timestamps: `T` or `t`, 1–9 fraction digits, no leap second, dates
        /// and offsets that exist.
        package static let pipeline = Dialect(
            separators: [UInt8(ascii: "T"), UInt8(ascii: "t")], fractionDigits: 1...9, maximumSecond: 59,
            validatesRanges: true
        )
        /// Receipt dates as Apple writes them: `T` or a space, any number of fraction digits, a
        /// leap second.
        package static let receipt = Dialect(
            separators: [UInt8(ascii: "T"), UInt8(ascii: " ")], fractionDigits: 0...Int.max, maximumSecond: 60,
            validatesRanges: false
        )
    }

    /// An instant: whole seconds since 1970 (UTC) and the fraction digits as written (0–9 each).
    package struct Instant: Sendable {
        package var secondsSince1970: Int64
        package var fractionDigits: [UInt8]

        /// The fraction truncated to milliseconds.
        package var milliseconds: Int64 {
            var millis: Int64 = 0
            for (index, digit) in self.fractionDigits.prefix(3).enumerated() {
                millis += Int64(digit) * [100, 10, 1][index]
            }
            return millis
        }
    }

    /// Parses `text` in `dialect`; nil for anything else.
    package static func parse(_ text: String, _ dialect: Dialect) -> Instant? {
        var text = text
        return text.withUTF8 { self.parse($0, dialect) }
    }

    /// Parses the UTF-8 `text` in `dialect`; nil for anything else.
    package static func parse(_ text: UnsafeBufferPointer<UInt8>, _ dialect: Dialect) -> Instant? {
        var scanner = DigitScanner(text)
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
            let day = scanner.number(2), scanner.skip(oneOf: dialect.separators),
            let hour = scanner.number(2), scanner.skip(":"), let minute = scanner.number(2), scanner.skip(":"),
            let second = scanner.number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= dialect.maximumSecond
        else { return nil }

        var fraction: [UInt8] = []
        if scanner.skip(".") {
            fraction = scanner.digits()
            guard dialect.fractionDigits.contains(fraction.count) else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if !(scanner.skip("Z") || scanner.skip("z")) {
            let sign: Int64
            if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else { return nil }
            guard let offsetHours = scanner.number(2), scanner.skip(":"), let offsetMinutes = scanner.number(2) else {
                return nil
            }
            if dialect.validatesRanges { guard offsetHours < 24, offsetMinutes < 60 else { return nil } }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard scanner.isAtEnd else { return nil }

        let days = self.days(fromCivil: year, month, day)
        if dialect.validatesRanges {
            guard self.civil(fromDays: days) == (year, month, day) else { return nil }
        }
        return Instant(
            secondsSince1970: days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds,
            fractionDigits: fraction)
    }

    // Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, exact integers).
    package static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
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
}

/// Reads fixed-width ASCII digits and literal characters from UTF-8 bytes.
private struct DigitScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { self.index == self.bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: character) else { return false }
        self.index += 1
        return true
    }

    mutating func skip(oneOf characters: Set<UInt8>) -> Bool {
        guard self.index < self.bytes.count, characters.contains(self.bytes[self.index]) else { return false }
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
