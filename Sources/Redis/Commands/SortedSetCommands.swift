/// One end of a score range (`ZRANGEBYSCORE`, `ZCOUNT`).
public enum RedisScoreBound: Sendable, Hashable {
    /// Scores from (or up to) this one, itself included.
    case inclusive(Int64)
    /// Scores above (or below) this one: `(<score>`.
    case exclusive(Int64)
    /// `-inf`.
    case negativeInfinity
    /// `+inf`.
    case positiveInfinity

    var argument: RedisValue {
        switch self {
        case .inclusive(let score): .integer(score)
        case .exclusive(let score): .string("(\(score)")
        case .negativeInfinity: "-inf"
        case .positiveInfinity: "+inf"
        }
    }
}

/// `ZADD key score member`: true when the member is new (false when only its score changed).
public struct ZADD: RedisCommand, Hashable {
    public typealias Response = Bool
    public static var name: String { "ZADD" }

    public var key: String
    public var score: Int64
    public var member: RedisValue

    public init(_ key: String, score: Int64, member: RedisValue) {
        self.key = key
        self.score = score
        self.member = member
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        encoder.append(.integer(score))
        encoder.append(member)
    }
}

/// `ZREM key member [member …]`: how many members were removed.
public struct ZREM: RedisCommand, Hashable {
    public typealias Response = Int
    public static var name: String { "ZREM" }

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

/// `ZRANGEBYSCORE key min max [LIMIT offset count]`: the members in the range, lowest score first.
public struct ZRANGEBYSCORE: RedisCommand, Hashable {
    public typealias Response = [String]
    public static var name: String { "ZRANGEBYSCORE" }

    /// `LIMIT offset count`.
    public struct Limit: Sendable, Hashable {
        public var offset: Int64
        public var count: Int64

        public init(offset: Int64, count: Int64) {
            self.offset = offset
            self.count = count
        }
    }

    public var key: String
    public var min: RedisScoreBound
    public var max: RedisScoreBound
    public var limit: Limit?

    public init(_ key: String, min: RedisScoreBound, max: RedisScoreBound, limit: Limit? = nil) {
        self.key = key
        self.min = min
        self.max = max
        self.limit = limit
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }
    public var isReadOnly: Bool { true }

    public func encode(into encoder: inout RedisCommandEncoder) {
        Self.encode(key: key, min: min, max: max, withScores: false, limit: limit, into: &encoder)
    }

    static func encode(
        key: String, min: RedisScoreBound, max: RedisScoreBound, withScores: Bool, limit: Limit?,
        into encoder: inout RedisCommandEncoder
    ) {
        encoder.append(name)
        encoder.append(key: key)
        encoder.append(min.argument)
        encoder.append(max.argument)
        if withScores { encoder.append("WITHSCORES") }
        if let limit {
            encoder.append("LIMIT")
            encoder.append(.integer(limit.offset))
            encoder.append(.integer(limit.count))
        }
    }

    /// `ZRANGEBYSCORE key min max WITHSCORES [LIMIT offset count]`: members with their scores.
    public struct WithScores: RedisCommand, Hashable {
        public typealias Response = [(member: String, score: Double)]
        public static var name: String { "ZRANGEBYSCORE" }

        public var key: String
        public var min: RedisScoreBound
        public var max: RedisScoreBound
        public var limit: Limit?

        public init(_ key: String, min: RedisScoreBound, max: RedisScoreBound, limit: Limit? = nil) {
            self.key = key
            self.min = min
            self.max = max
            self.limit = limit
        }

        public var keys: CollectionOfOne<String> { CollectionOfOne(key) }
        public var isReadOnly: Bool { true }

        public func encode(into encoder: inout RedisCommandEncoder) {
            ZRANGEBYSCORE.encode(key: key, min: min, max: max, withScores: true, limit: limit, into: &encoder)
        }

        public func decode(_ reply: RedisReply) throws(RedisError) -> [(member: String, score: Double)] {
            let elements = try reply.decodeArray()
            guard elements.count % 2 == 0 else {
                throw RedisError.unexpected(reply, expected: "member and score pairs")
            }
            var pairs: [(member: String, score: Double)] = []
            pairs.reserveCapacity(elements.count / 2)
            for index in stride(from: 0, to: elements.count, by: 2) {
                pairs.append(
                    (try String(fromRedisReply: elements[index]), try Double(fromRedisReply: elements[index + 1])))
            }
            return pairs
        }
    }
}

/// `ZCOUNT key min max`: how many members score in the range.
public struct ZCOUNT: RedisCommand, Hashable {
    public typealias Response = Int
    public static var name: String { "ZCOUNT" }

    public var key: String
    public var min: RedisScoreBound
    public var max: RedisScoreBound

    public init(_ key: String, min: RedisScoreBound, max: RedisScoreBound) {
        self.key = key
        self.min = min
        self.max = max
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }
    public var isReadOnly: Bool { true }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        encoder.append(min.argument)
        encoder.append(max.argument)
    }
}

/// `ZCARD key`: how many members the sorted set has (0 for a missing key).
public struct ZCARD: RedisCommand, Hashable {
    public typealias Response = Int
    public static var name: String { "ZCARD" }

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

/// `ZRANDMEMBER key count`: up to `count` distinct members at random.
public struct ZRANDMEMBER: RedisCommand, Hashable {
    public typealias Response = [String]
    public static var name: String { "ZRANDMEMBER" }

    public var key: String
    public var count: Int64

    public init(_ key: String, count: Int64) {
        self.key = key
        self.count = count
    }

    public var keys: CollectionOfOne<String> { CollectionOfOne(key) }
    public var isReadOnly: Bool { true }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        encoder.append(key: key)
        encoder.append(.integer(count))
    }
}
