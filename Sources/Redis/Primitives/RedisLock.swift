import Basics

/// A single-instance Redis lock (`SET NX PX` plus compare-and-delete).
///
/// Locks here are an efficiency tool (avoid two workers doing the same Apple call at once);
/// correctness comes from idempotent writes downstream, because a TTL cannot stop a paused
/// holder from acting after expiry.
public struct RedisLock: Sendable {
    private let client: RedisClient

    public init(client: RedisClient) { self.client = client }

    /// Takes `key` for `ttl`, or returns nil when someone else holds it.
    public func acquire(_ key: String, ttl: Duration) async throws -> LockToken? {
        let token = LockToken.next()
        let taken = try await client.execute(
            SET(
                key, value: .string(token.value), condition: .nx,
                expiration: .milliseconds(ttl.milliseconds(rounding: .up))))
        return taken ? token : nil
    }

    /// Deletes `key` only if it still holds `token`; false when it expired or was re-taken.
    @discardableResult
    public func release(_ key: String, token: LockToken) async throws -> Bool {
        try await client.execute(EVALSHA<Int64>(.releaseLock, keys: [key], arguments: [.string(token.value)])) == 1
    }

    /// Resets the TTL of `key` to `ttl` only if it still holds `token`.
    public func extend(_ key: String, token: LockToken, ttl: Duration) async throws -> Bool {
        try await client.execute(
            EVALSHA<Int64>(
                .extendLock, keys: [key], arguments: [.string(token.value), .integer(ttl.milliseconds(rounding: .up))])
        ) == 1
    }
}

extension RedisScript {
    /// KEYS[1] lock; ARGV[1] token. Returns 1 when deleted, 0 otherwise.
    static let releaseLock = RedisScript(
        """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('DEL', KEYS[1])
        end
        return 0
        """
    )

    /// KEYS[1] lock; ARGV[1] token, ARGV[2] ttl ms. Returns 1 when extended, 0 otherwise.
    static let extendLock = RedisScript(
        """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('PEXPIRE', KEYS[1], ARGV[2])
        end
        return 0
        """
    )
}
