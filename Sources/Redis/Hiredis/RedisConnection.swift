internal import CHiredis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One hiredis `redisContext`, connected lazily and replaced after any failure.
///
/// hiredis 0.14.1 is blocking and not thread-safe; every method here blocks and must be
/// called from its ``CommandLane``'s thread, never from Swift's cooperative pool.
///
/// `@unchecked Sendable` invariant: only the owning lane's thread touches it, so `context`
/// is never accessed concurrently.
final class RedisConnection: @unchecked Sendable {
    private let configuration: RedisConfiguration
    private var context: UnsafeMutablePointer<redisContext>?

    init(configuration: RedisConfiguration) {
        self.configuration = configuration
    }

    deinit {
        if let context { redisFree(context) }
    }

    /// Runs one command; error replies are returned as ``RedisReply/error(_:)``, not thrown.
    func execute(_ command: [RedisValue]) throws(RedisError) -> RedisReply {
        let context = try connected()
        let raw = Argv.with(command) { argc, argv, lengths in redisCommandArgv(context, argc, argv, lengths) }
        guard let raw else { throw discard(context) }
        defer { freeReplyObject(raw) }
        return RedisReply(raw.assumingMemoryBound(to: redisReply.self))
    }

    /// Appends every command to the output buffer, then reads the replies in order: the first
    /// read flushes all commands in one write, so N commands cost one round trip.
    func execute(pipeline commands: [[RedisValue]]) throws(RedisError) -> [RedisReply] {
        let context = try connected()
        for command in commands {
            let status = Argv.with(command) { argc, argv, lengths in
                redisAppendCommandArgv(context, argc, argv, lengths)
            }
            guard status == REDIS_OK else { throw discard(context) }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw discard(context) }
            replies.append(RedisReply(raw.assumingMemoryBound(to: redisReply.self)))
            freeReplyObject(raw)
        }
        return replies
    }

    /// Closes the socket; the next command reconnects.
    func close() {
        if let context { redisFree(context) }
        context = nil
    }

    /// The live context, reconnecting (with AUTH and SELECT) when there is none or the last
    /// one recorded an error: after a NULL reply a hiredis context cannot be reused.
    private func connected() throws(RedisError) -> UnsafeMutablePointer<redisContext> {
        if let context, context.pointee.err == 0 { return context }
        close()
        guard
            let fresh = redisConnectWithTimeout(
                configuration.host, Int32(configuration.port), timeval(configuration.connectTimeout))
        else {
            throw RedisError(code: .connectionFailed, message: "hiredis could not allocate a context")
        }
        guard fresh.pointee.err == 0 else {
            let message = Self.errorText(fresh)
            redisFree(fresh)
            throw RedisError(
                code: .connectionFailed, message: "\(configuration.host):\(configuration.port): \(message)")
        }
        _ = redisSetTimeout(fresh, timeval(configuration.commandTimeout))
        _ = redisEnableKeepAlive(fresh)
        context = fresh
        do {
            if let password = configuration.password {
                let user: [RedisValue] = configuration.username.map { [.string($0)] } ?? []
                try handshake(["AUTH"] + user + [.string(password)], step: "AUTH")
            }
            if configuration.database != 0 {
                try handshake(["SELECT", .integer(Int64(configuration.database))], step: "SELECT")
            }
        } catch {
            close()
            throw RedisError(code: .connectionFailed, message: error.message)
        }
        return fresh
    }

    private func handshake(_ command: [RedisValue], step: String) throws(RedisError) {
        if case .error(let message) = try execute(command) {
            throw RedisError(code: .connectionFailed, message: "\(step) failed: \(message)")
        }
    }

    /// Drops a context that failed mid-command and describes why.
    private func discard(_ failed: UnsafeMutablePointer<redisContext>) -> RedisError {
        let message = Self.errorText(failed)
        close()
        return RedisError(code: .connectionLost, message: "\(configuration.host):\(configuration.port): \(message)")
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

extension timeval {
    fileprivate init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
