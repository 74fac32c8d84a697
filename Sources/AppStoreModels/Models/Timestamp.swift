import Basics
public import Foundation

/// An instant: whole milliseconds since 1970 (UTC). The one date type of the code base: Apple
/// signs its dates as millisecond instants, and the pipeline's events carry the same values.
///
/// Integer milliseconds rather than `Date` so Apple's signed dates round-trip exactly (a `Date`
/// built from `Double` can print `…560.999`), and the string form is computed with integer
/// arithmetic for the same reason.
///
/// Two JSON forms, chosen by whoever encodes or decodes (``JSONForm``): Apple's number of
/// milliseconds (the default, for Apple's payloads and requests; Xcode-signed fractional
/// milliseconds are truncated toward zero), and the pipeline's ISO-8601 string with
/// milliseconds (`2026-11-21T21:00:00.000Z`), which the event codec in `Contracts` selects.
/// Reading the string form accepts any RFC 3339 offset and 0–9 fraction digits.
public struct Timestamp: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// How a timestamp is written in JSON; set under ``jsonFormKey`` in an encoder's or
    /// decoder's `userInfo`, Apple's ``milliseconds`` when absent.
    public enum JSONForm: Sendable {
        /// A number of milliseconds since 1970, as Apple signs and expects dates.
        case milliseconds
        /// An ISO-8601 UTC string with milliseconds, as the pipeline's events carry them.
        case iso8601
    }

    public static let jsonFormKey = CodingUserInfoKey(rawValue: "iap.timestampJSONForm")!

    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Truncates to the millisecond.
    public init(_ date: Date) {
        self.millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
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
        let fields = self.fields
        guard fields.isCanonical else { return Self.interpolated(fields) }
        return String(unsafeUninitializedCapacity: Self.canonicalLength) { buffer in
            Self.write(fields, into: buffer)
            return Self.canonicalLength
        }
    }

    /// Appends the ``iso8601`` form's UTF-8 to `bytes` without making a `String`: every event
    /// a worker writes carries a few timestamps, and building each through `String` was ~1 % of
    /// a worker's CPU (docs/performance.md, session 22).
    public func appendISO8601(to bytes: inout [UInt8]) {
        let fields = self.fields
        guard fields.isCanonical else {
            bytes.append(contentsOf: Self.interpolated(fields).utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.canonicalLength) { buffer in
            Self.write(fields, into: buffer)
            bytes.append(contentsOf: buffer)
        }
    }

    /// Parses RFC 3339 (`2026-11-21T21:00:00Z`, `…T21:00:00.5+01:00`); nil for anything else.
    public init?(iso8601 text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Timestamp(iso8601UTF8: $0) }) else { return nil }
        self = parsed
    }

    /// ``init(iso8601:)`` from UTF-8 bytes. The form the pipeline writes (24 bytes, `T`, three
    /// fraction digits, `Z`) is read in place; any other RFC 3339 text goes through the general
    /// reader, which accepts the same texts and refuses the same ones.
    public init?(iso8601UTF8 bytes: UnsafeBufferPointer<UInt8>) {
        if let canonical = Self.canonical(bytes) {
            self = canonical
            return
        }
        guard let instant = RFC3339.parse(bytes, .pipeline) else { return nil }
        self.millisecondsSince1970 = instant.secondsSince1970 * 1000 + instant.milliseconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        switch decoder.userInfo[Self.jsonFormKey] as? JSONForm ?? .milliseconds {
        case .iso8601:
            let text = try container.decode(String.self)
            guard let parsed = Timestamp(iso8601: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "'\(text)' is not an ISO-8601 (RFC 3339) date-time")
            }
            self = parsed
        case .milliseconds:
            if let whole = try? container.decode(Int64.self) {
                self.millisecondsSince1970 = whole
                return
            }
            let fractional = try container.decode(Double.self)
            guard fractional.isFinite, abs(fractional) < 9.0e15 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "timestamp out of range")
            }
            self.millisecondsSince1970 = Int64(fractional.rounded(.towardZero))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch encoder.userInfo[Self.jsonFormKey] as? JSONForm ?? .milliseconds {
        case .iso8601: try container.encode(self.iso8601)
        case .milliseconds: try container.encode(self.millisecondsSince1970)
        }
    }

    public var description: String { self.iso8601 }
}

// MARK: The canonical form, byte by byte

extension Timestamp {
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`: years 0–9999 are always this long.
    private static let canonicalLength = 24

    /// The date and time fields in UTC.
    private struct Fields {
        var year, month, day, hour, minute, second, millisecond: Int64

        /// Years 0–9999 are written in four digits, so their form is always 24 bytes.
        var isCanonical: Bool { (0...9999).contains(self.year) }
    }

    private var fields: Fields {
        let (seconds, millis) = self.millisecondsSince1970.floorDivided(by: 1000)
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = RFC3339.civil(fromDays: days)
        return Fields(
            year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60,
            second: secondOfDay % 60, millisecond: millis)
    }

    /// Years outside 0–9999 (a hostile or corrupt millisecond count): rare, written as before.
    private static func interpolated(_ fields: Fields) -> String {
        "\(pad(fields.year, 4))-\(pad(fields.month, 2))-\(pad(fields.day, 2))T"
            + "\(pad(fields.hour, 2)):\(pad(fields.minute, 2)):\(pad(fields.second, 2)).\(pad(fields.millisecond, 3))Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func write(_ fields: Fields, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        func digits(_ value: Int64, _ width: Int, at offset: Int) {
            var value = value
            for index in (offset..<offset + width).reversed() {
                buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        for (offset, byte) in separators { buffer[offset] = byte }
        digits(fields.year, 4, at: 0)
        digits(fields.month, 2, at: 5)
        digits(fields.day, 2, at: 8)
        digits(fields.hour, 2, at: 11)
        digits(fields.minute, 2, at: 14)
        digits(fields.second, 2, at: 17)
        digits(fields.millisecond, 3, at: 20)
    }

    /// The canonical form's fixed bytes, `____-__-__T__:__:__.___Z`, where they stand.
    private static let separators: [(offset: Int, byte: UInt8)] = [
        (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")), (13, UInt8(ascii: ":")),
        (16, UInt8(ascii: ":")), (19, UInt8(ascii: ".")), (23, UInt8(ascii: "Z")),
    ]

    /// The instant `bytes` name when they are exactly the canonical form of an existing date;
    /// nil for anything else, which the general reader then decides.
    private static func canonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        guard bytes.count == canonicalLength, separators.allSatisfy({ bytes[$0.offset] == $0.byte }) else {
            return nil
        }
        func number(_ offset: Int, _ width: Int) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[offset..<offset + width] {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), let millisecond = number(20, 3),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = RFC3339.days(fromCivil: year, month, day)
        guard RFC3339.civil(fromDays: days) == (year, month, day) else { return nil }  // 02-30 and the like
        return Timestamp(
            millisecondsSince1970: ((days * 86_400 + hour * 3600 + minute * 60 + second) * 1000) + millisecond)
    }
}

extension Int64 {
    /// Quotient and non-negative remainder (floor division), so instants before 1970 format correctly.
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = self >= 0 ? self / divisor : -((-self - 1) / divisor) - 1
        return (quotient, self - quotient * divisor)
    }
}
