/// `GET key`: the value's bytes, nil when there is no such key.
public struct GET: RedisCommand, Hashable {
    public typealias Response = [UInt8]?
    public static var name: String { "GET" }

    public var key: String

    public init(_ key: String) {
        self.key = key
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }
    public var isReadOnly: Bool { true }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
    }

    public func decode(_ reply: RedisReply) throws(RedisError) -> [UInt8]? {
        try reply.decodeOptionalBytes()
    }
}

/// `SET key value [NX|XX] [PX milliseconds]`: true when written, false when the condition
/// kept the value (`NX` on a key that holds one, `XX` on a missing key).
public struct SET: RedisCommand, Hashable {
    public typealias Response = Bool
    public static var name: String { "SET" }

    /// When to write.
    public enum Condition: Sendable, Hashable {
        /// `NX`: only when the key holds nothing.
        case nx
        /// `XX`: only when the key holds a value.
        case xx
    }

    /// When the value expires.
    public enum Expiration: Sendable, Hashable {
        /// `PX`: this many milliseconds from now.
        case milliseconds(Int64)
    }

    public var key: String
    public var value: RedisValue
    public var condition: Condition?
    public var expiration: Expiration?

    public init(_ key: String, value: RedisValue, condition: Condition? = nil, expiration: Expiration? = nil) {
        self.key = key
        self.value = value
        self.condition = condition
        self.expiration = expiration
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        encoder.append(value)
        switch condition {
        case .nx: encoder.append("NX")
        case .xx: encoder.append("XX")
        case nil: break
        }
        if case .milliseconds(let milliseconds) = expiration {
            encoder.append("PX")
            encoder.append(.integer(milliseconds))
        }
    }

    public func decode(_ reply: RedisReply) throws(RedisError) -> Bool {
        switch reply {
        case .status("OK"): return true
        case .null: return false
        default: throw RedisError.unexpected(reply, expected: "OK or nil")
        }
    }
}

/// `DEL key [key …]`: how many of the keys existed.
public struct DEL: RedisCommand, Hashable {
    public typealias Response = Int
    public static var name: String { "DEL" }

    public var keys: [String]

    public init(_ keys: String...) {
        self.keys = keys
    }

    public init(keys: [String]) {
        self.keys = keys
    }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(keys: keys)
    }
}

/// `PEXPIRE key milliseconds`: false when the key does not exist.
public struct PEXPIRE: RedisCommand, Hashable {
    public typealias Response = Bool
    public static var name: String { "PEXPIRE" }

    public var key: String
    public var milliseconds: Int64

    public init(_ key: String, milliseconds: Int64) {
        self.key = key
        self.milliseconds = milliseconds
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        encoder.append(.integer(milliseconds))
    }
}
