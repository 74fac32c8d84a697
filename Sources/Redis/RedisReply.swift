/// A RESP2 reply (hiredis 0.14.1 speaks RESP2 only).
public enum RedisReply: Sendable, Hashable {
    /// A bulk string; binary safe.
    case string([UInt8])
    /// A status reply such as `OK`.
    case status(String)
    case integer(Int64)
    /// A nil bulk or nil array (Lua `false`/`nil`).
    case null
    case array([RedisReply])
    /// An error reply. Commands throw it as ``RedisError/Code/server`` instead; it is only seen
    /// in ``RedisPipeline/Replies/replies`` and nested arrays.
    case error(String)

    /// The bulk string's bytes, or the status text's bytes.
    public var bytes: [UInt8]? {
        switch self {
        case .string(let bytes): bytes
        case .status(let status): Array(status.utf8)
        default: nil
        }
    }

    /// The bulk string or status decoded as UTF-8.
    public var string: String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The integer value, also parsing numeric bulk strings (e.g. `GET` of a counter).
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .string: string.flatMap { Int64($0) }
        default: nil
        }
    }

    public var array: [RedisReply]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    public var isNull: Bool { self == .null }
}
