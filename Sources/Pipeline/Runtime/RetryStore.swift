/// Durable delayed retries (Redis sorted set in production, see `RedisRetryStore`).
///
/// The runtime acknowledges a Kafka record that must be retried only after `schedule`
/// returned, so the retry lives in exactly one durable place at every moment.
public protocol RetryStore: Sendable {
    /// Schedules `payload` under `id` (idempotent per id) to become due after `delay`.
    func schedule(id: String, payload: [UInt8], after delay: Duration) async throws
    /// Claims up to `limit` due items for `lease`; unacknowledged items come back afterwards.
    func claimDue(limit: Int, lease: Duration) async throws -> [ClaimedRetry]
    /// Removes items whose re-publish was acknowledged by Kafka.
    func acknowledge(_ ids: [String]) async throws
    /// Items waiting, for the retry-depth gauge.
    func depth() async throws -> Int
}

public struct ClaimedRetry: Sendable, Hashable {
    public var id: String
    public var payload: [UInt8]

    public init(id: String, payload: [UInt8]) {
        self.id = id
        self.payload = payload
    }
}

/// "Already done?" and "who works on it now?" for one business id across all replicas.
public protocol IdempotencyGuard: Sendable {
    func begin(_ id: String, lockTTL: Duration) async throws -> IdempotencyState
    /// Records that the side effect happened, then releases the lock.
    func complete(_ id: String, token: String, retention: Duration) async throws
    /// Releases the lock without marking done (the work will be tried again).
    func abandon(_ id: String, token: String) async throws
}

public enum IdempotencyState: Sendable, Hashable {
    case alreadyDone
    case acquired(token: String)
    /// Another worker holds the lock right now.
    case busy
}
