public import Foundation

/// An instant as Apple signs it: milliseconds since 1970 (UTC).
///
/// Kept as an integer rather than `Date` so values round-trip exactly (a `Date` built from
/// `Double` milliseconds can print as `…560.9999`). Xcode-signed data may carry fractional
/// milliseconds; those are truncated toward zero.
public struct AppStoreDate: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public init(_ date: Date) {
        self.millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    public var date: Date { Date(timeIntervalSince1970: Double(self.millisecondsSince1970) / 1000) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
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

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.millisecondsSince1970)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.millisecondsSince1970 < rhs.millisecondsSince1970 }

    public var description: String { self.date.formatted(.iso8601) }
}
