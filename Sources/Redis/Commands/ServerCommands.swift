/// `PING`: `PONG`.
public struct PING: RedisCommand, Hashable {
    public typealias Response = String
    public static var name: String { "PING" }

    public init() {}

    public var keys: EmptyCollection<String> { EmptyCollection() }
    public var isReadOnly: Bool { true }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
    }
}

/// `INFO [section]`: the server's report, as text.
public struct INFO: RedisCommand, Hashable {
    public typealias Response = String
    public static var name: String { "INFO" }

    public var section: String?

    public init(_ section: String? = nil) {
        self.section = section
    }

    public var keys: EmptyCollection<String> { EmptyCollection() }
    public var isReadOnly: Bool { true }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
        if let section { encoder.append(section) }
    }
}

/// `FLUSHALL`: every key of every database is gone.
public struct FLUSHALL: RedisCommand, Hashable {
    public typealias Response = Void
    public static var name: String { "FLUSHALL" }

    public init() {}

    public var keys: EmptyCollection<String> { EmptyCollection() }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.append(Self.name)
    }

    public func decode(_ reply: RedisReply) throws(RedisError) {
        guard reply == .status("OK") else { throw RedisError.unexpected(reply, expected: "OK") }
    }
}

/// `EVALSHA sha1 numkeys key… arg…` of a ``RedisScript``, sent with `EVAL` and its source when
/// the server does not know it (``RedisCommandEncoder/appendScript(_:keys:arguments:)``). The
/// reply decodes to `Response`, e.g. `EVALSHA<Int64>` for a script returning a number,
/// `EVALSHA<Int64?>` for one that may return `false`.
///
/// Every key the script touches must be among `keys` (a cluster routes on them).
public struct EVALSHA<Response: RedisReplyDecodable>: RedisCommand, Hashable {
    public static var name: String { "EVALSHA" }

    public var script: RedisScript
    public var keys: [String]
    public var arguments: [RedisValue]

    public init(
        _ script: RedisScript, keys: [String], arguments: [RedisValue] = [], as _: Response.Type = Response.self
    ) {
        self.script = script
        self.keys = keys
        self.arguments = arguments
    }

    public func encode(into encoder: inout RedisCommandEncoder) {
        encoder.appendScript(script, keys: keys, arguments: arguments)
    }
}
