import Crypto

/// A Lua script run with `EVALSHA`, falling back to `EVAL` when the server answers `NOSCRIPT`
/// (after a restart, a failover or `SCRIPT FLUSH`).
///
/// The SHA-1 is computed locally, so the common path is one round trip with no
/// `SCRIPT LOAD` bookkeeping. Times used by scripts come from `redis.call('TIME')`, so
/// workers with skewed clocks agree.
public struct RedisScript: Sendable, Hashable {
    public let source: String
    /// Lower-case hex SHA-1 of `source`, as `SCRIPT LOAD` returns it.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        // SHA-1 only names the script for `EVALSHA` (Redis' choice); it protects nothing.
        self.sha1 = Insecure.SHA1.hash(data: Array(source.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }
}
