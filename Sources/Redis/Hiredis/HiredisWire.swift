internal import CHiredis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One established connection that sends pipelines and reads their replies; replaced by its
/// ``RedisConnection`` after any failure. Every method blocks: call it from the lane's thread.
protocol RedisWire: AnyObject {
    /// Writes every command in one go, then reads their replies in order. Throws (usually
    /// ``RedisError/Code/connectionLost``) when the socket failed; the wire is then unusable.
    func execute(pipeline commands: [[RedisValue]]) throws(RedisError) -> [RedisReply]
}

/// A plain TCP connection: hiredis' own `redisContext` does the socket, the protocol and the
/// timeouts (`redis://`, the path the driver always had).
///
/// `@unchecked Sendable` is not claimed: only its lane's thread ever holds one.
final class HiredisWire: RedisWire {
    private let context: UnsafeMutablePointer<redisContext>
    private let target: String

    private init(context: UnsafeMutablePointer<redisContext>, target: String) {
        self.context = context
        self.target = target
    }

    deinit {
        redisFree(context)
    }

    static func connect(_ configuration: RedisConfiguration) throws(RedisError) -> HiredisWire {
        let target = "\(configuration.host):\(configuration.port)"
        guard
            let context = redisConnectWithTimeout(
                configuration.host, Int32(configuration.port), timeval(configuration.connectTimeout))
        else {
            throw RedisError(code: .connectionFailed, message: "hiredis could not allocate a context")
        }
        guard context.pointee.err == 0 else {
            let message = errorText(context)
            redisFree(context)
            throw RedisError(code: .connectionFailed, message: "\(target): \(message)")
        }
        _ = redisSetTimeout(context, timeval(configuration.commandTimeout))
        _ = redisEnableKeepAlive(context)
        return HiredisWire(context: context, target: target)
    }

    /// Appends every command to the output buffer at once, then reads the replies in order: the
    /// first read flushes all commands in one write, so N commands cost one round trip.
    func execute(pipeline commands: [[RedisValue]]) throws(RedisError) -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        let request = RESPRequest.encode(commands)
        let status = request.withUnsafeBytes { bytes in
            redisAppendFormattedCommand(context, bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count)
        }
        guard status == REDIS_OK else { throw failure() }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw failure() }
            replies.append(RedisReply(raw.assumingMemoryBound(to: redisReply.self)))
            freeReplyObject(raw)
        }
        return replies
    }

    /// After a NULL reply a hiredis context cannot be reused; describes why it failed.
    private func failure() -> RedisError {
        RedisError(code: .connectionLost, message: "\(target): \(Self.errorText(context))")
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

extension timeval {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
