public import Redis

/// `IdempotencyGuard` on Redis: "done" markers and locks keyed on business ids, one namespace
/// per stage, shared by every replica of it.
public struct RedisIdempotencyGuard: IdempotencyGuard {
    private let store: IdempotencyStore

    public init(client: RedisClient, stage: String) {
        store = IdempotencyStore(client: client, namespace: stage)
    }

    public func begin(_ id: String, lockTTL: Duration, attempt: Int) async throws -> Pipeline.IdempotencyState {
        switch try await store.begin(id, lockTTL: lockTTL, attempt: attempt) {
        case .alreadyDone: return .alreadyDone
        case .acquired(let token): return .acquired(token: token.value)
        case .busy: return .busy
        case .superseded: return .superseded
        }
    }

    public func complete(_ id: String, token: String, retention: Duration) async throws {
        _ = try await store.complete(id, token: LockToken(value: token), result: [], retention: retention)
    }

    public func abandon(_ id: String, token: String) async throws {
        _ = try await store.abandon(id, token: LockToken(value: token))
    }

    public func postpone(_ id: String, token: String, untilAttempt attempt: Int, ttl: Duration) async throws {
        _ = try await store.postpone(id, token: LockToken(value: token), untilAttempt: attempt, ttl: ttl)
    }
}
