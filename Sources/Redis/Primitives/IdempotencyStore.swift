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
    /// else reports that another worker holds it.
    public func begin(_ id: String, lockTTL: Duration) async throws -> IdempotencyState {
        let token = LockToken.next()
        let key = RedisValue.string(key(id))
        // One round trip: try to lock, then read whoever holds the key now.
        let replies = try await client.pipeline([
            ["SET", key, .string(Self.lockPrefix + token.value), "NX", "PX", .integer(lockTTL.wholeMilliseconds)],
            ["GET", key],
        ])
        guard replies.count == 2 else { throw RedisError(code: .unexpectedReply, message: "idempotency begin returned \(replies)") }
        let locked = try replies[0].throwingServerError()
        let current = try replies[1].throwingServerError()
        if let value = current.bytes, value.first == Self.donePrefix.utf8.first {
            return .alreadyDone(result: Array(value.dropFirst()))
        }
        return locked.isNull ? .busy : .acquired(token)
    }

    /// Records `id` as done with `result` for `retention`, replacing the lock. Returns false
    /// when the lock was no longer `token`'s (it expired: another worker may have run the work
    /// concurrently; the marker is written anyway because the side effect happened).
    @discardableResult
    public func complete(_ id: String, token: LockToken, result: [UInt8], retention: Duration) async throws -> Bool {
        let key = RedisValue.string(key(id))
        let replies = try await client.pipeline([
            ["GET", key],
            ["SET", key, .bytes(Array(Self.donePrefix.utf8) + result), "PX", .integer(retention.wholeMilliseconds)],
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
}
