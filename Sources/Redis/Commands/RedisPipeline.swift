/// Commands sent together: in one write, their replies read in order, on one connection
/// (``RedisClient/execute(_:)-pipeline``), or as one `MULTI`/`EXEC` transaction
/// (``RedisClient/transaction(_:)``).
///
/// ``append(_:)`` returns a ``Slot`` typed by its command; the ``Replies`` decode each slot to
/// that command's `Response`:
///
/// ```swift
/// var pipeline = RedisPipeline()
/// let locked = pipeline.append(SET(key, value: token, condition: .nx))
/// let current = pipeline.append(GET(key))
/// let replies = try await client.execute(pipeline)
/// if try replies[locked] { … }
/// ```
///
/// An error reply of one command stays with its slot (reading that slot throws it), so one
/// failing command does not hide the others' results; ``Replies/throwingFirstError()`` makes
/// the whole pipeline fail instead.
public struct RedisPipeline: Sendable {
    var commands: [EncodedCommand] = []

    public init() {}

    /// An empty pipeline with room for `capacity` commands, for hot paths that know how many.
    public init(reservingCapacity capacity: Int) {
        commands.reserveCapacity(capacity)
    }

    /// How many commands were appended.
    public var count: Int { commands.count }
    public var isEmpty: Bool { commands.isEmpty }

    /// Where a command's reply is, and how it decodes.
    public struct Slot<Command: RedisCommand>: Sendable {
        public let index: Int
        let command: Command
    }

    /// Appends `command`; its reply is read through the returned slot.
    @discardableResult
    public mutating func append<Command: RedisCommand>(_ command: Command) -> Slot<Command> {
        commands.append(command.encoded)
        return Slot(index: commands.count - 1, command: command)
    }

    /// The replies of a pipeline, in the order its commands were appended.
    public struct Replies: Sendable {
        /// The undecoded replies, error replies included.
        public let replies: [RedisReply]

        package init(replies: [RedisReply]) {
            self.replies = replies
        }

        /// The reply of the slot's command, decoded; its error reply thrown as
        /// ``RedisError/Code/server``, a reply of another shape as ``RedisError/Code/unexpectedReply``.
        public subscript<Command: RedisCommand>(slot: Slot<Command>) -> Command.Response {
            get throws(RedisError) {
                try slot.command.decodeReply(replies[slot.index])
            }
        }

        /// Throws the first error reply, so that a pipeline of writes either all succeeded or fails.
        @discardableResult
        public func throwingFirstError() throws(RedisError) -> Replies {
            for case .error(let message) in replies { throw RedisError(code: .server, message: message) }
            return self
        }
    }
}
