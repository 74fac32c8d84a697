/// One argument of a Redis command.
///
/// Commands are sent length-prefixed (`RESPRequest`), so every value is binary safe: `.bytes`
/// may contain NUL bytes or invalid UTF-8.
public enum RedisValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case bytes([UInt8])
    case integer(Int64)

    public init(stringLiteral value: String) { self = .string(value) }

    public init(integerLiteral value: Int64) { self = .integer(value) }

    /// The bytes put on the wire.
    public var bytes: [UInt8] {
        switch self {
        case .string(let string): Array(string.utf8)
        case .bytes(let bytes): bytes
        case .integer(let integer): Array(String(integer).utf8)
        }
    }
}
