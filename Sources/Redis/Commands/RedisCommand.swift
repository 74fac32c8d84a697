/// One Redis command as a value, in the shape of valkey-swift's `ValkeyCommand`: the command
/// knows its name, the keys it touches, whether it only reads, how it is written on the wire
/// and how its reply decodes into a typed ``Response``.
///
/// ``RedisClient/execute(_:)`` runs one and returns its decoded reply; ``RedisPipeline`` sends
/// several in one round trip (``RedisClient/execute(_:)-pipeline`` and
/// ``RedisClient/transaction(_:)``). Both are generic over the command type, so running a
/// command boxes nothing: the arguments go straight into the lane's argument list.
///
/// An error reply never reaches ``decode(_:)``: the client throws it as
/// ``RedisError/Code/server`` first. A reply of another shape than the command expects throws
/// ``RedisError/Code/unexpectedReply`` naming the command and its first key, never a crash.
///
/// The keys are what a cluster client would route on (every key of one command must share a
/// hash slot there); this driver talks to one server and uses them only in error messages.
public protocol RedisCommand: Sendable {
    /// What the reply decodes to.
    associatedtype Response
    /// The keys the command touches, in the order it names them.
    associatedtype Keys: Collection<String>

    /// The command's name as sent, e.g. `GET`.
    static var name: String { get }
    /// The keys the command reads or writes.
    var keys: Keys { get }
    /// Whether the command only reads (a replica could serve it). False unless a command says so.
    var isReadOnly: Bool { get }
    /// Appends the command's name and arguments.
    func encode(into encoder: inout RedisCommandEncoder)
    /// Decodes a reply that is not an error reply; throws ``RedisError/Code/unexpectedReply``
    /// (``RedisError/unexpected(_:expected:)``) for a reply of another shape.
    func decode(_ reply: RedisReply) throws(RedisError) -> Response
}

extension RedisCommand {
    public var isReadOnly: Bool { false }
}

extension RedisCommand where Response: RedisReplyDecodable {
    public func decode(_ reply: RedisReply) throws(RedisError) -> Response {
        try Response(fromRedisReply: reply)
    }
}

extension RedisCommand {
    /// The command's wire form, for the lane (and the tests of the command layer).
    package var encoded: EncodedCommand {
        var encoder = RedisCommandEncoder()
        encode(into: &encoder)
        return encoder.encoded
    }

    /// `reply` decoded, an error reply thrown as ``RedisError/Code/server``, and a reply of
    /// another shape as ``RedisError/Code/unexpectedReply`` naming the command and its first key.
    package func decodeReply(_ reply: RedisReply) throws(RedisError) -> Response {
        if case .error(let message) = reply { throw RedisError(code: .server, message: message) }
        do throws(RedisError) {
            return try decode(reply)
        } catch  where error.code == .unexpectedReply {
            let key = keys.first.map { " \($0)" } ?? ""
            throw RedisError(code: .unexpectedReply, message: "\(Self.name)\(key): \(error.message)")
        }
    }
}

/// What a command is on the wire: its arguments, name first, and for `EVALSHA` the script, so
/// that the lane can send it again with `EVAL` when the server does not know it (`NOSCRIPT`).
package struct EncodedCommand: Sendable, Hashable {
    package var arguments: [RedisValue]
    package var script: RedisScript?

    package init(arguments: [RedisValue], script: RedisScript? = nil) {
        self.arguments = arguments
        self.script = script
    }
}

/// Collects one command's arguments (``RedisCommand/encode(into:)``). Values are binary safe
/// (sent with explicit lengths).
public struct RedisCommandEncoder: Sendable {
    private var arguments: [RedisValue] = []
    private var script: RedisScript?

    init() {
        arguments.reserveCapacity(8)
    }

    var encoded: EncodedCommand { EncodedCommand(arguments: arguments, script: script) }

    /// Appends one argument (the command's name is the first).
    public mutating func append(_ argument: RedisValue) {
        arguments.append(argument)
    }

    /// Appends a string argument.
    public mutating func append(_ string: String) {
        arguments.append(.string(string))
    }

    /// Appends arguments in order.
    public mutating func append(contentsOf arguments: some Sequence<RedisValue>) {
        self.arguments.append(contentsOf: arguments)
    }

    /// Appends a key.
    public mutating func append(key: String) {
        arguments.append(.string(key))
    }

    /// Appends keys in order.
    public mutating func append(keys: some Sequence<String>) {
        for key in keys { arguments.append(.string(key)) }
    }

    /// `EVALSHA <sha1> <number of keys> <keys…> <arguments…>`, remembering the script so that
    /// a server that does not know it (after a restart, a failover or `SCRIPT FLUSH`) gets its
    /// source with `EVAL` in one more round trip, so in a pipeline it then runs after the
    /// commands that followed it. Inside ``RedisClient/transaction(_:)`` there is no such
    /// fallback (the error comes with `EXEC`).
    public mutating func appendScript(
        _ script: RedisScript, keys: some Collection<String>, arguments: some Sequence<RedisValue>
    ) {
        self.script = script
        self.arguments.append("EVALSHA")
        self.arguments.append(.string(script.sha1))
        self.arguments.append(.integer(Int64(keys.count)))
        append(keys: keys)
        self.arguments.append(contentsOf: arguments)
    }
}

extension RedisError {
    /// ``Code/unexpectedReply``: `reply` is not what a command's decoder expected.
    public static func unexpected(_ reply: RedisReply, expected: String) -> RedisError {
        RedisError(code: .unexpectedReply, message: "expected \(expected), got \(reply.summary)")
    }
}

extension RedisReply {
    /// The reply's kind and size, for error messages: values may be large or private.
    public var summary: String {
        switch self {
        case .string(let bytes): "a bulk string of \(bytes.count) bytes"
        case .status(let status): "the status \(status)"
        case .integer(let value): "the integer \(value)"
        case .null: "nil"
        case .array(let elements): "an array of \(elements.count)"
        case .error(let message): "the error \(message)"
        }
    }
}
