public import Logging
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pool of blocking hiredis connections driven from async code.
///
/// Each of the `poolSize` connections serves one call at a time; every hiredis call runs on
/// a dedicated `NIOThreadPool` with one thread per connection, so a slow Redis never starves
/// Swift's cooperative pool. A connection whose command failed at the socket level is
/// closed and transparently reconnected (with AUTH and SELECT) by the next call that uses it.
/// Commands are not retried automatically: one that failed with
/// ``RedisError/Code/connectionLost`` may or may not have run on the server.
///
/// Call ``shutdown()`` before dropping the client; it stops the threads.
public final class RedisClient: Sendable {
    public let configuration: RedisConfiguration
    private let pool: ConnectionPool
    private let threads: NIOThreadPool
    private let logger: Logger

    public init(configuration: RedisConfiguration, logger: Logger = Logger(label: "iap.redis")) {
        _ = Self.ignoreSIGPIPE
        self.configuration = configuration
        self.logger = logger
        self.pool = ConnectionPool(configuration: configuration)
        self.threads = NIOThreadPool(numberOfThreads: configuration.poolSize)
        threads.start()
    }

    /// A backstop for owners that never called ``shutdown()``: stops the threads (a no-op
    /// when already stopped) so a dropped client does not leak them.
    deinit {
        threads.shutdownGracefully { _ in }
    }

    /// hiredis writes with `write(2)`; a peer that closed the socket would otherwise kill the
    /// process with SIGPIPE instead of failing the command with EPIPE.
    private static let ignoreSIGPIPE: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// Sends one command. An error reply throws ``RedisError/Code/server`` with its text.
    public func send(_ command: [RedisValue]) async throws -> RedisReply {
        try await withConnection { connection in try connection.execute(command).throwingServerError() }
    }

    /// Sends one command given as variadic arguments, e.g. `send("SET", "k", .bytes(v))`.
    public func send(_ command: RedisValue...) async throws -> RedisReply {
        try await send(command)
    }

    /// Sends all commands in one write and reads their replies in order, on one connection.
    /// Error replies stay in the result as ``RedisReply/error(_:)`` so one failing command
    /// does not hide the others' results.
    public func pipeline(_ commands: [[RedisValue]]) async throws -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        return try await withConnection { connection in try connection.execute(pipeline: commands) }
    }

    /// Runs a Lua script by SHA (`EVALSHA`), sending its source with `EVAL` only when the
    /// server does not know it (`NOSCRIPT`). Keys are passed separately so a cluster could
    /// route them; a script error throws ``RedisError/Code/server``.
    public func run(_ script: RedisScript, keys: [String], arguments: [RedisValue] = []) async throws -> RedisReply {
        let tail: [RedisValue] = [.integer(Int64(keys.count))] + keys.map(RedisValue.string) + arguments
        return try await withConnection { connection in
            let reply = try connection.execute(["EVALSHA", .string(script.sha1)] + tail)
            if case .error(let message) = reply, message.hasPrefix("NOSCRIPT") {
                return try connection.execute(["EVAL", .string(script.source)] + tail).throwingServerError()
            }
            return try reply.throwingServerError()
        }
    }

    /// Fails waiting callers, closes idle connections and stops the threads once in-flight
    /// commands have finished. Calls after this throw ``RedisError/Code/shutdown``.
    public func shutdown() async {
        let idle = pool.shutdown()
        _ = try? await threads.runIfActive { idle.forEach { $0.close() } }
        try? await threads.shutdownGracefully()
    }

    /// Leases a connection, runs `body` with it on the thread pool, and returns it.
    private func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (RedisConnection) throws -> Result
    ) async throws -> Result {
        let connection = try await pool.lease()
        defer { pool.release(connection) }
        do {
            return try await threads.runIfActive { try body(connection) }
        } catch let error as RedisError {
            if error.code == .connectionLost || error.code == .connectionFailed {
                logger.warning("redis connection failed", metadata: ["error": "\(error)"])
            }
            throw error
        } catch is CancellationError where !Task.isCancelled {
            // The thread pool cancels work it can no longer run because it is shutting down.
            throw RedisError(code: .shutdown, message: "the Redis client was shut down")
        }
    }
}

extension RedisReply {
    /// Turns an error reply into a thrown ``RedisError/Code/server``.
    func throwingServerError() throws(RedisError) -> RedisReply {
        if case .error(let message) = self { throw RedisError(code: .server, message: message) }
        return self
    }
}
