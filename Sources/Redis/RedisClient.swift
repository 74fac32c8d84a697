public import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking hiredis connections driven from async code, with automatic pipelining.
///
/// Each of the `poolSize` connections has its own thread (a ``CommandLane``), so a slow Redis
/// never starves Swift's cooperative pool. Concurrent calls go out together: whatever queued
/// while a connection's round trip was on the wire is written as its next pipeline, and a call
/// joins such a connection rather than waking an idle one unless that round trip is slow (see
/// `submit`). Calls from one task stay in order (each awaits its reply).
/// A connection whose command failed at the socket level (or got `READONLY` from a demoted
/// master) is closed and transparently reconnected (with AUTH and SELECT) by its next batch;
/// the client's connections share one capped exponential backoff and log one line per change
/// of state (``RedisConfiguration/Reconnect``, decision D25). Commands are not retried
/// automatically: one that failed with ``RedisError/Code/connectionLost`` may or may not have
/// run on the server. A blocking command (`BLPOP`) holds its connection, and the commands
/// queued behind it on that connection, until it returns.
///
/// Call ``shutdown()`` before dropping the client; it stops the threads.
public final class RedisClient: Sendable {
    public let configuration: RedisConfiguration
    private let lanes: [CommandLane]
    private let shared: RedisConnection.Shared

    public init(configuration: RedisConfiguration, logger: Logger = Logger(label: "iap.redis")) {
        _ = Self.ignoreSIGPIPE
        self.configuration = configuration
        let shared = RedisConnection.Shared(configuration: configuration, logger: logger)
        self.shared = shared
        self.lanes = (0..<configuration.poolSize).map { _ in CommandLane(configuration: configuration, shared: shared) }
    }

    /// A backstop for owners that never called ``shutdown()``: stops the threads (a no-op
    /// when already stopped) so a dropped client does not leak them.
    deinit {
        for lane in lanes { lane.stop() }
    }

    /// hiredis writes with `write(2)`; a peer that closed the socket would otherwise kill the
    /// process with SIGPIPE instead of failing the command with EPIPE.
    private static let ignoreSIGPIPE: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// Runs one command and decodes its reply (``RedisCommand``). An error reply throws
    /// ``RedisError/Code/server`` with its text; a reply of another shape than the command
    /// expects throws ``RedisError/Code/unexpectedReply``.
    public func execute<Command: RedisCommand>(_ command: Command) async throws -> Command.Response {
        try command.decodeReply(try await submit(.command(command.encoded))[0])
    }

    /// Sends the pipeline's commands in one write and reads their replies in order, on one
    /// connection. Error replies stay with their commands' slots (``RedisPipeline/Replies``).
    public func execute(_ pipeline: RedisPipeline) async throws -> RedisPipeline.Replies {
        guard !pipeline.isEmpty else { return RedisPipeline.Replies(replies: []) }
        return RedisPipeline.Replies(replies: try await submit(.pipeline(pipeline.commands)))
    }

    /// Runs the pipeline's commands as one `MULTI`/`EXEC` transaction in one round trip: other
    /// clients see all of its writes or none, and its reads see one moment. A command the
    /// server refused to queue fails the whole transaction (``RedisError/Code/server``,
    /// `EXECABORT`); an error of one command while it ran stays with its slot, as in a pipeline.
    /// On a Redis Cluster every key would have to be in one slot; this driver talks to one server.
    public func transaction(_ pipeline: RedisPipeline) async throws -> RedisPipeline.Replies {
        guard !pipeline.isEmpty else { return RedisPipeline.Replies(replies: []) }
        let replies = try await submit(
            .pipeline(
                [EncodedCommand(arguments: ["MULTI"])] + pipeline.commands + [EncodedCommand(arguments: ["EXEC"])])
        )
        for case .error(let message) in replies { throw RedisError(code: .server, message: message) }
        guard case .array(let results) = replies[replies.count - 1], results.count == pipeline.count else {
            throw RedisError(
                code: .unexpectedReply,
                message: "EXEC: expected \(pipeline.count) replies, got \(replies[replies.count - 1].summary)")
        }
        return RedisPipeline.Replies(replies: results)
    }

    // MARK: Untyped commands, for the Redis module and the package's tests

    /// Sends one command given as its arguments. An error reply throws ``RedisError/Code/server``.
    package func send(_ command: [RedisValue]) async throws -> RedisReply {
        try await submit(.command(EncodedCommand(arguments: command)))[0].throwingServerError()
    }

    /// Sends one command given as variadic arguments, e.g. `send("SET", "k", .bytes(v))`.
    package func send(_ command: RedisValue...) async throws -> RedisReply {
        try await send(command)
    }

    /// Sends all commands in one write and reads their replies in order; error replies stay in
    /// the result as ``RedisReply/error(_:)``.
    package func pipeline(_ commands: [[RedisValue]]) async throws -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        return try await submit(.pipeline(commands.map { EncodedCommand(arguments: $0) }))
    }

    /// Fails queued calls, lets the batches on the wire finish, then closes the connections
    /// and stops the threads. Calls after this throw ``RedisError/Code/shutdown``.
    public func shutdown() async {
        await withDiscardingTaskGroup { group in
            for lane in lanes { group.addTask { await lane.shutdown() } }
        }
    }

    /// What went to the server so far (`commands / roundTrips` is the pipelining achieved),
    /// and what is waiting for a reply now.
    public struct Traffic: Sendable, Hashable {
        public var commands = 0
        public var roundTrips = 0
        /// Calls queued or on the wire.
        public var waiting = 0
    }

    /// Commands and round trips since the client started, over all connections.
    public var traffic: Traffic {
        lanes.reduce(into: Traffic()) { total, lane in
            let traffic = lane.traffic
            total.commands += traffic.commands
            total.roundTrips += traffic.roundTrips
            total.waiting += traffic.waiting
        }
    }

    /// Queues where the request costs the fewest round trips without waiting behind a slow one:
    /// on the first lane whose round trip went out within the join window (it leaves with that
    /// lane's next batch), else on the first idle lane (at once), else on the least pending.
    /// Under load most calls so share one connection's batches; a second connection takes over
    /// only while the first is stuck on a slow command (decisions D14, D72).
    private func submit(_ request: CommandLane.Request) async throws -> [RedisReply] {
        let now = ContinuousClock.now
        var idle: CommandLane?
        var fewest = (lane: lanes[0], pending: Int.max)
        for lane in lanes {
            switch lane.load(at: now, joinWindow: configuration.joinWindow) {
            case .joinable:
                return try await lane.submit(request)
            case .idle:
                if idle == nil { idle = lane }
            case .busy(let pending):
                if pending < fewest.pending { fewest = (lane, pending) }
            }
        }
        return try await (idle ?? fewest.lane).submit(request)
    }
}

extension RedisReply {
    /// Turns an error reply into a thrown ``RedisError/Code/server``.
    package func throwingServerError() throws(RedisError) -> RedisReply {
        if case .error(let message) = self { throw RedisError(code: .server, message: message) }
        return self
    }
}
