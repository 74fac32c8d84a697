/// "Do this once per business id": a done marker checked and a lock taken in one script.
///
/// Protocol: ``begin(_:lockTTL:)``; if `.acquired`, perform the side effect, then
/// ``complete(_:token:result:retention:)`` (writes the done marker *after* the side effect, so
/// a crash re-runs the work once the lock expires instead of losing it) or
/// ``abandon(_:token:)`` on failure. Ids are business ids (Apple transaction ids), never
/// Kafka offsets, since re-published retries get new offsets.
///
/// Keys: `iap:idem:{<namespace>:<id>}:done` and `:lock`, sharing a hash tag so the scripts
/// touching both stay on one Redis Cluster slot.
public struct IdempotencyStore: Sendable {
    private let client: RedisClient
    public let namespace: String

    public init(client: RedisClient, namespace: String) {
        self.client = client
        self.namespace = namespace
    }

    /// Returns the stored result if the work was done, else takes the lock for `lockTTL`,
    /// else reports that another worker holds it.
    public func begin(_ id: String, lockTTL: Duration) async throws -> IdempotencyState {
        let token = LockToken.next()
        let reply = try await client.run(.beginIdempotent, keys: keys(id), arguments: [.string(token.value), .integer(lockTTL.wholeMilliseconds)])
        guard let fields = reply.array, let outcome = fields.first?.integer else {
            throw RedisError(code: .unexpectedReply, message: "idempotency begin returned \(reply)")
        }
        switch outcome {
        case 1: return .alreadyDone(result: fields.dropFirst().first?.bytes ?? [])
        case 2: return .acquired(token)
        default: return .busy
        }
    }

    /// Records `id` as done with `result` for `retention`, then releases the lock if `token`
    /// still holds it. Returns false when the lock had expired (another worker may have run
    /// the work concurrently; the marker is written anyway because the side effect happened).
    @discardableResult
    public func complete(_ id: String, token: LockToken, result: [UInt8], retention: Duration) async throws -> Bool {
        let reply = try await client.run(
            .completeIdempotent,
            keys: keys(id),
            arguments: [.string(token.value), .bytes(result), .integer(retention.wholeMilliseconds)]
        )
        return reply.integer == 1
    }

    /// Releases the lock without marking done, so another attempt can run immediately.
    @discardableResult
    public func abandon(_ id: String, token: LockToken) async throws -> Bool {
        try await RedisLock(client: client).release(keys(id)[1], token: token)
    }

    private func keys(_ id: String) -> [String] {
        let base = "iap:idem:{\(namespace):\(id)}"
        return [base + ":done", base + ":lock"]
    }
}

/// The outcome of ``IdempotencyStore/begin(_:lockTTL:)``.
public enum IdempotencyState: Sendable, Hashable {
    /// The work finished earlier; its recorded result.
    case alreadyDone(result: [UInt8])
    /// This caller holds the lock and must complete or abandon.
    case acquired(LockToken)
    /// Another caller holds the lock; retry later.
    case busy
}

extension RedisScript {
    /// KEYS done, lock; ARGV token, lock ttl ms. Returns {1, result} | {2} | {3}.
    static let beginIdempotent = RedisScript(
        """
        local done = redis.call('GET', KEYS[1])
        if done then
          return {1, done}
        end
        if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
          return {2}
        end
        return {3}
        """
    )

    /// KEYS done, lock; ARGV token, result, retention ms. Returns 1 if the lock was ours.
    static let completeIdempotent = RedisScript(
        """
        redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
        if redis.call('GET', KEYS[2]) == ARGV[1] then
          redis.call('DEL', KEYS[2])
          return 1
        end
        return 0
        """
    )
}
