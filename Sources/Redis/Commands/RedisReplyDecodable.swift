/// A type a reply decodes to (valkey-swift's `RESPTokenDecodable`): what a command whose
/// `Response` conforms gets without writing a decoder, and what ``EVALSHA`` returns.
///
/// A reply of another shape throws ``RedisError/Code/unexpectedReply``; an error reply nested
/// in an array throws ``RedisError/Code/server`` with its text.
public protocol RedisReplyDecodable {
    init(fromRedisReply reply: RedisReply) throws(RedisError)
}

extension RedisReply: RedisReplyDecodable {
    /// The reply as it came, for callers that read it themselves.
    public init(fromRedisReply reply: RedisReply) throws(RedisError) {
        self = reply
    }
}

extension RedisReply {
    /// The bytes of a bulk string (or status) reply.
    public func decodeBytes() throws(RedisError) -> [UInt8] {
        switch self {
        case .string(let bytes): return bytes
        case .status(let status): return Array(status.utf8)
        case .error(let message): throw RedisError(code: .server, message: message)
        default: throw RedisError.unexpected(self, expected: "a bulk string")
        }
    }

    /// The bytes of a bulk string reply, nil for a nil reply (no such key).
    public func decodeOptionalBytes() throws(RedisError) -> [UInt8]? {
        if case .null = self { return nil }
        return try decodeBytes()
    }

    /// The elements of an array reply.
    public func decodeArray() throws(RedisError) -> [RedisReply] {
        switch self {
        case .array(let elements): return elements
        case .error(let message): throw RedisError(code: .server, message: message)
        default: throw RedisError.unexpected(self, expected: "an array")
        }
    }
}

extension String: RedisReplyDecodable {
    /// A bulk string or status, decoded as UTF-8.
    public init(fromRedisReply reply: RedisReply) throws(RedisError) {
        self = String(decoding: try reply.decodeBytes(), as: UTF8.self)
    }
}

extension Int64: RedisReplyDecodable {
    /// An integer reply, or a bulk string holding one (`GET` of a counter).
    public init(fromRedisReply reply: RedisReply) throws(RedisError) {
        switch reply {
        case .integer(let value): self = value
        case .string(let bytes):
            guard let value = Int64(String(decoding: bytes, as: UTF8.self)) else {
                throw RedisError.unexpected(reply, expected: "an integer")
            }
            self = value
        case .error(let message): throw RedisError(code: .server, message: message)
        default: throw RedisError.unexpected(reply, expected: "an integer")
        }
    }
}

extension Int: RedisReplyDecodable {
    public init(fromRedisReply reply: RedisReply) throws(RedisError) {
        let value = try Int64(fromRedisReply: reply)
        guard let exact = Int(exactly: value) else { throw RedisError.unexpected(reply, expected: "an Int") }
        self = exact
    }
}

extension Bool: RedisReplyDecodable {
    /// An integer reply of 1 (true) or 0 (false), as `PEXPIRE` and `SISMEMBER` answer.
    public init(fromRedisReply reply: RedisReply) throws(RedisError) {
        switch try Int64(fromRedisReply: reply) {
        case 1: self = true
        case 0: self = false
        default: throw RedisError.unexpected(reply, expected: "the integer 0 or 1")
        }
    }
}

extension Double: RedisReplyDecodable {
    /// A bulk string holding a number (a sorted set's score), or an integer reply.
    public init(fromRedisReply reply: RedisReply) throws(RedisError) {
        if case .integer(let value) = reply {
            self = Double(value)
            return
        }
        guard let value = Double(String(decoding: try reply.decodeBytes(), as: UTF8.self)) else {
            throw RedisError.unexpected(reply, expected: "a number")
        }
        self = value
    }
}

extension Optional: RedisReplyDecodable where Wrapped: RedisReplyDecodable {
    /// nil for a nil reply (a missing key, Lua `false`), else the wrapped type.
    public init(fromRedisReply reply: RedisReply) throws(RedisError) {
        if case .null = reply {
            self = nil
            return
        }
        self = try Wrapped(fromRedisReply: reply)
    }
}

extension Array: RedisReplyDecodable where Element: RedisReplyDecodable {
    /// An array reply, each element decoded.
    public init(fromRedisReply reply: RedisReply) throws(RedisError) {
        let elements = try reply.decodeArray()
        var decoded: [Element] = []
        decoded.reserveCapacity(elements.count)
        for element in elements { decoded.append(try Element(fromRedisReply: element)) }
        self = decoded
    }
}
