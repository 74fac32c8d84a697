/// `HMGET key field [field …]`: each field's value, nil for a missing field (or key).
public struct HMGET: RedisCommand, Hashable {
    public typealias Response = [[UInt8]?]
    public static var name: String { "HMGET" }

    public var key: String
    public var fields: [String]

    public init(_ key: String, fields: [String]) {
        self.key = key
        self.fields = fields
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }
    public var isReadOnly: Bool { true }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        for field in fields { encoder.append(field) }
    }

    public func decode(_ reply: RedisReply) throws(RedisError) -> [[UInt8]?] {
        let elements = try reply.decodeArray()
        guard elements.count == fields.count else {
            throw RedisError.unexpected(reply, expected: "\(fields.count) fields")
        }
        var values: [[UInt8]?] = []
        values.reserveCapacity(elements.count)
        for element in elements { values.append(try element.decodeOptionalBytes()) }
        return values
    }
}

/// `HGETALL key`: the hash's fields (as UTF-8) and values, in the server's order; empty for a
/// missing key.
public struct HGETALL: RedisCommand, Hashable {
    public typealias Response = [(field: String, value: [UInt8])]
    public static var name: String { "HGETALL" }

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

    public func decode(_ reply: RedisReply) throws(RedisError) -> [(field: String, value: [UInt8])] {
        let elements = try reply.decodeArray()
        guard elements.count % 2 == 0 else {
            throw RedisError.unexpected(reply, expected: "field and value pairs")
        }
        var pairs: [(field: String, value: [UInt8])] = []
        pairs.reserveCapacity(elements.count / 2)
        for index in stride(from: 0, to: elements.count, by: 2) {
            pairs.append((try String(fromRedisReply: elements[index]), try elements[index + 1].decodeBytes()))
        }
        return pairs
    }
}

/// `SADD key member [member …]`: how many members were new.
public struct SADD: RedisCommand, Hashable {
    public typealias Response = Int
    public static var name: String { "SADD" }

    public var key: String
    public var members: [RedisValue]

    public init(_ key: String, members: [RedisValue]) {
        self.key = key
        self.members = members
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        encoder.append(contentsOf: members)
    }
}

/// `SREM key member [member …]`: how many members were removed (a set left empty is deleted).
public struct SREM: RedisCommand, Hashable {
    public typealias Response = Int
    public static var name: String { "SREM" }

    public var key: String
    public var members: [RedisValue]

    public init(_ key: String, members: [RedisValue]) {
        self.key = key
        self.members = members
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        encoder.append(contentsOf: members)
    }
}

/// `SMEMBERS key`: the set's members (as UTF-8), in no order; empty for a missing key.
public struct SMEMBERS: RedisCommand, Hashable {
    public typealias Response = [String]
    public static var name: String { "SMEMBERS" }

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
}

/// `HSET key field value [field value …]`: how many fields were new.
public struct HSET: RedisCommand, Hashable {
    public typealias Response = Int
    public static var name: String { "HSET" }

    public var key: String
    public var field: String
    public var value: RedisValue

    public init(_ key: String, field: String, value: RedisValue) {
        self.key = key
        self.field = field
        self.value = value
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        encoder.append(field)
        encoder.append(value)
    }
}
