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
        let (seconds, millis) = self.millisecondsSince1970.floorDivided(by: 1000)
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = RFC3339.civil(fromDays: days)
        return "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T"
            + "\(Self.pad(secondOfDay / 3600, 2)):\(Self.pad(secondOfDay % 3600 / 60, 2)):\(Self.pad(secondOfDay % 60, 2))"
            + ".\(Self.pad(millis, 3))Z"
    }

    /// Parses RFC 3339 (`2026-11-21T21:00:00Z`, `…T21:00:00.5+01:00`); nil for anything else.
    public init?(iso8601 text: String) {
        guard let instant = RFC3339.parse(text, .pipeline) else { return nil }
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

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

extension Int64 {
    /// Quotient and non-negative remainder (floor division), so instants before 1970 format correctly.
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = self >= 0 ? self / divisor : -((-self - 1) / divisor) - 1
        return (quotient, self - quotient * divisor)
    }
}
