import Basics

/// "Do this once per business id": a done marker and a lock in one key, so the common path
/// costs plain commands instead of scripts (decision D16).
///
/// Protocol: ``begin(_:lockTTL:)``; if `.acquired`, perform the side effect, then
/// ``complete(_:token:result:retention:)`` (writes the done marker *after* the side effect, so
/// a crash re-runs the work once the lock expires instead of losing it) or
/// ``abandon(_:token:)`` on failure. Ids are business ids (Apple transaction ids), never
/// Kafka offsets, since re-published retries get new offsets.
///
/// Key: `iap:idem:{<namespace>:<id>}`, holding `L<token>` while locked and `D<result>` once
/// done. A done marker replaces the lock in one write, and `SET NX` can never take a key that
/// is done, so no state needs two keys kept consistent.
public struct IdempotencyStore: Sendable {
    private let client: RedisClient
    public let namespace: String

    public init(client: RedisClient, namespace: String) {
        self.client = client
        self.namespace = namespace
    }

    /// Returns the stored result if the work was done, else takes the lock for `lockTTL`,
    /// else reports that another worker holds it. `attempt` is the delivery's retry count: a
    /// delivery older than a retry scheduled for the id (``postpone(_:token:untilAttempt:ttl:)``)
    /// is ``IdempotencyState/superseded``; the scheduled one (or a later one) takes the lock.
    public func begin(_ id: String, lockTTL: Duration, attempt: Int = 0) async throws -> IdempotencyState {
        let token = LockToken.next()
        let key = RedisValue.string(key(id))
        // One round trip: try to lock, then read whoever holds the key now.
        let replies = try await client.pipeline([
            ["SET", key, .string(Self.lockPrefix + token.value), "NX", "PX", .integer(lockTTL.milliseconds(rounding: .up))],
            ["GET", key],
        ])
        guard replies.count == 2 else { throw RedisError(code: .unexpectedReply, message: "idempotency begin returned \(replies)") }
        let locked = try replies[0].throwingServerError()
        let current = try replies[1].throwingServerError()
        if let value = current.bytes, value.first == Self.donePrefix.utf8.first {
            return .alreadyDone(result: Array(value.dropFirst()))
        }
        if let value = current.bytes, value.first == Self.scheduledPrefix.utf8.first {
            guard let scheduled = Int(String(decoding: value.dropFirst(), as: UTF8.self)), attempt >= scheduled else { return .superseded }
            // The scheduled delivery itself: take the lock over from the marker, unless another
            // caller changed the key meanwhile.
            let taken = try await client.run(
                .compareAndSet, keys: [self.key(id)],
                arguments: [.bytes(value), .string(Self.lockPrefix + token.value), .integer(lockTTL.milliseconds(rounding: .up))]
            )
            return taken.integer == 1 ? .acquired(token) : .busy
        }
        return locked.isNull ? .busy : .acquired(token)
    }

    /// Replaces the caller's lock with a marker that a retry numbered `attempt` is scheduled,
    /// for `ttl` (longer than the retry's delay). Until then, deliveries of the id numbered
    /// below `attempt` are ``IdempotencyState/superseded``: a record replayed after a crash,
    /// whose offset was not committed yet, must not redo work its scheduled retry will do, and
    /// above all must not call Apple before the `Retry-After` that retry waits for. Returns
    /// false when the lock was no longer the caller's.
    @discardableResult
    public func postpone(_ id: String, token: LockToken, untilAttempt attempt: Int, ttl: Duration) async throws -> Bool {
        let reply = try await client.run(
            .compareAndSet, keys: [key(id)],
            arguments: [.string(Self.lockPrefix + token.value), .string(Self.scheduledPrefix + String(attempt)), .integer(ttl.milliseconds(rounding: .up))]
        )
        return reply.integer == 1
    }

    /// Records `id` as done with `result` for `retention`, replacing the lock. Returns false
    /// when the lock was no longer `token`'s (it expired: another worker may have run the work
    /// concurrently; the marker is written anyway because the side effect happened).
    @discardableResult
    public func complete(_ id: String, token: LockToken, result: [UInt8], retention: Duration) async throws -> Bool {
        let key = RedisValue.string(key(id))
        let replies = try await client.pipeline([
            ["GET", key],
            ["SET", key, .bytes(Array(Self.donePrefix.utf8) + result), "PX", .integer(retention.milliseconds(rounding: .up))],
        ])
        guard replies.count == 2 else { throw RedisError(code: .unexpectedReply, message: "idempotency complete returned \(replies)") }
        let previous = try replies[0].throwingServerError()
        _ = try replies[1].throwingServerError()
        return previous.bytes == Array((Self.lockPrefix + token.value).utf8)
    }

    /// Releases the lock without marking done, so another attempt can run immediately.
    @discardableResult
    public func abandon(_ id: String, token: LockToken) async throws -> Bool {
        try await RedisLock(client: client).release(key(id), token: LockToken(value: Self.lockPrefix + token.value))
    }

    private static let lockPrefix = "L"
    private static let donePrefix = "D"
    private static let scheduledPrefix = "S"

    private func key(_ id: String) -> String {
        "iap:idem:{\(namespace):\(id)}"
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
    /// A retry of the id with a higher attempt number is scheduled: this delivery is an older
    /// copy (replayed after a crash) and its work is the scheduled retry's.
    case superseded
}

extension RedisScript {
    /// KEYS key; ARGV expected, new value, ttl ms. Sets the key to the new value only while it
    /// holds the expected one: a lock becoming a scheduled marker, and back.
    static let compareAndSet = RedisScript(
        """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
          return 1
        end
        return 0
        """
    )
}
