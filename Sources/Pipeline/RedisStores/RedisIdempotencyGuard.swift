import Basics
public import Redis

/// ``IdempotencyGuard`` on Redis: "do this once per business id" for every replica of a stage,
/// a done marker and a lock in one key, so the common path costs plain commands instead of
/// scripts (decision D16).
///
/// Protocol: ``begin(_:lockTTL:attempt:)``; if `.acquired`, perform the side effect, then
/// ``complete(_:token:retention:)`` (writes the done marker *after* the side effect, so a crash
/// re-runs the work once the lock expires instead of losing it) or ``abandon(_:token:)`` on
/// failure. Ids are business ids (``BusinessKeys``), never Kafka offsets, since re-published
/// retries get new offsets.
///
/// Key: ``Keyspace/idempotency(stage:key:)`` (`<prefix>idem:{<stage>:<id>}`), holding
/// `L<token>` while locked, `S<attempt>` while a retry is scheduled (D21), `W<delivery id>`
/// while a wait is (D36) and `D` once done. A done marker replaces the lock in one write, and
/// `SET NX` can never take a key that is done, so no state needs two keys kept consistent.

public struct RedisIdempotencyGuard: IdempotencyGuard {
    private let client: RedisClient
    public let stage: String
    public let keyspace: Keyspace

    public init(client: RedisClient, stage: String, keyspace: Keyspace = .standard) {
        self.client = client
        self.stage = stage
        self.keyspace = keyspace
    }

    /// Reports the work done, else takes the lock for `lockTTL`, else reports that another
    /// worker holds it. `attempt` is the delivery's retry count: a delivery older than a retry
    /// scheduled for the id (``postpone(_:token:untilAttempt:ttl:)``) is
    /// ``IdempotencyState/superseded``; the scheduled one (or a later one) takes the lock.
    public func begin(_ id: String, lockTTL: Duration, attempt: Int = 0) async throws -> IdempotencyState {
        let token = LockToken.next()
        let key = key(id)
        // One round trip: try to lock, then read whoever holds the key now.
        var pipeline = RedisPipeline(reservingCapacity: 2)
        let lock = pipeline.append(
            SET(
                key, value: .string(Self.lockPrefix + token.value), condition: .nx,
                expiration: .milliseconds(lockTTL.milliseconds(rounding: .up))))
        let read = pipeline.append(GET(key))
        let replies = try await client.execute(pipeline)
        let locked = try replies[lock]
        let current = try replies[read]
        if let value = current, value.first == Self.donePrefix.utf8.first {
            return .alreadyDone
        }
        if let value = current, value.first == Self.waitPrefix.utf8.first {
            // A wait stands for the id: anyone may take over, learning which wait it replaces.
            let taken = try await compareAndSet(key, expected: .bytes(value), token: token, ttl: lockTTL)
            guard taken else { return .busy }
            return .acquiredOverWait(token: token.value, wait: String(decoding: value.dropFirst(), as: UTF8.self))
        }
        if let value = current, value.first == Self.scheduledPrefix.utf8.first {
            guard let scheduled = Int(String(decoding: value.dropFirst(), as: UTF8.self)), attempt >= scheduled else {
                return .superseded
            }
            // The scheduled delivery itself: take the lock over from the marker, unless another
            // caller changed the key meanwhile.
            let taken = try await compareAndSet(key, expected: .bytes(value), token: token, ttl: lockTTL)
            return taken ? .acquired(token: token.value) : .busy
        }
        return locked ? .acquired(token: token.value) : .busy
    }

    /// Replaces `expected` in `key` with the caller's lock for `ttl`; false when the key changed.
    private func compareAndSet(_ key: String, expected: RedisValue, token: LockToken, ttl: Duration) async throws
        -> Bool
    {
        try await client.execute(
            EVALSHA<Int64>(
                .compareAndSet, keys: [key],
                arguments: [
                    expected, .string(Self.lockPrefix + token.value), .integer(ttl.milliseconds(rounding: .up)),
                ]
            )) == 1
    }

    /// Replaces the caller's lock with a marker that a retry numbered `attempt` is scheduled,
    /// for `ttl` (longer than the retry's delay). Until then, deliveries of the id numbered
    /// below `attempt` are ``IdempotencyState/superseded``: a record replayed after a crash,
    /// whose offset was not committed yet, must not redo work its scheduled retry will do, and
    /// above all must not call Apple before the `Retry-After` that retry waits for. Nothing
    /// changes when the lock was no longer the caller's.
    public func postpone(_ id: String, token: String, untilAttempt attempt: Int, ttl: Duration) async throws {
        _ = try await client.execute(
            EVALSHA<Int64>(
                .compareAndSet, keys: [key(id)],
                arguments: [
                    .string(Self.lockPrefix + token), .string(Self.scheduledPrefix + String(attempt)),
                    .integer(ttl.milliseconds(rounding: .up)),
                ]
            ))
    }

    /// Replaces the caller's lock with a marker naming the wait scheduled for the id, for `ttl`
    /// (longer than the wait). Nothing changes when the lock was no longer the caller's.
    public func park(_ id: String, token: String, wait: String, ttl: Duration) async throws {
        _ = try await client.execute(
            EVALSHA<Int64>(
                .compareAndSet, keys: [key(id)],
                arguments: [
                    .string(Self.lockPrefix + token), .string(Self.waitPrefix + wait),
                    .integer(ttl.milliseconds(rounding: .up)),
                ]
            ))
    }

    /// Records `id` as done for `retention`, replacing the lock. Written even when the lock
    /// was no longer the caller's (it expired: another worker may have run the work
    /// concurrently), because the side effect happened.
    public func complete(_ id: String, token: String, retention: Duration) async throws {
        _ = try await client.execute(
            SET(
                key(id), value: .string(Self.donePrefix),
                expiration: .milliseconds(retention.milliseconds(rounding: .up))))
    }

    /// Releases the lock without marking done, so another attempt can run immediately.
    public func abandon(_ id: String, token: String) async throws {
        _ = try await RedisLock(client: client).release(key(id), token: LockToken(value: Self.lockPrefix + token))
    }

    private static let lockPrefix = "L"
    private static let donePrefix = "D"
    private static let scheduledPrefix = "S"
    private static let waitPrefix = "W"

    private func key(_ id: String) -> String {
        keyspace.idempotency(stage: stage, key: id)
    }
}

extension RedisScript {
    /// KEYS key; ARGV expected, new value, ttl ms. Sets the key to the new value only while it
    /// holds the expected one: a lock becoming a scheduled or waiting marker, and back.
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
