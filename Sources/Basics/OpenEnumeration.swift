/// A value from a documented set that may grow at any time.
///
/// Apple adds notification types, offer types and environments without notice; a closed Swift
/// `enum` would make a new value fail the whole payload's decoding (and with it a purchase).
/// Conforming structs keep the raw value and expose the known values as static constants.
/// Error codes use it for the same reason: a code added later breaks no caller's `switch`.
public protocol OpenEnumeration: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible
where RawValue: Codable & Hashable & Sendable {
    init(rawValue: RawValue)
}

extension OpenEnumeration {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(rawValue: try container.decode(RawValue.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }

    public var description: String { "\(self.rawValue)" }
}
