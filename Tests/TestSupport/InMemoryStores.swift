import Foundation
public import Pipeline
import Synchronization

/// A `RetryStore` in process memory with the same lease semantics as the Redis one, for tests
/// of the runtime's logic that do not need a Redis server.
public final class InMemoryRetryStore: RetryStore {
    private struct Item {
        var payload: [UInt8]
        var due: ContinuousClock.Instant
        var waiting: ScheduledDelivery.Waiting?
    }
    private let items = Mutex<[String: Item]>([:])
    private let clock = ContinuousClock()

    public init() {}

    public func schedule(_ delivery: ScheduledDelivery, ifScheduled: ScheduledDelivery.IfScheduled) async throws {
        let untilNotBefore =
            delivery.notBefore.map { Duration.milliseconds(max(0, Int64($0.timeIntervalSinceNow * 1000))) } ?? .zero
        let due = clock.now + max(delivery.delay, untilNotBefore)
        items.withLock { items in
            if items[delivery.id] == nil {
                items[delivery.id] = Item(payload: delivery.payload, due: due, waiting: delivery.waiting)
            } else if ifScheduled == .bringForward, due < items[delivery.id]!.due {
                items[delivery.id]!.due = due
            }
        }
    }

    public func claimDue(limit: Int, lease: Duration) async throws -> [ClaimedRetry] {
        let now = clock.now
        return items.withLock { items in
            let due = items.filter { $0.value.due <= now }.prefix(limit)
            for (id, _) in due { items[id]!.due = now + lease }
            return due.map { ClaimedRetry(id: $0.key, payload: $0.value.payload) }
        }
    }

    public func acknowledge(_ ids: [String]) async throws {
        items.withLock { items in for id in ids { items[id] = nil } }
    }

    public func depth() async throws -> Int { items.withLock { $0.count } }

    public func waiting() async throws -> WaitingSummary {
        items.withLock { items in
            let waits = items.values.compactMap(\.waiting)
            return WaitingSummary(
                counts: Dictionary(grouping: waits, by: \.on).mapValues(\.count), oldestSince: waits.map(\.since).min())
        }
    }
}

/// An `IdempotencyGuard` in process memory (one process, so "across replicas" is simulated by
/// sharing one instance between runtimes).
public final class InMemoryIdempotency: IdempotencyGuard {
    private struct Entry {
        var done = false
        var token: String?
        var expires: ContinuousClock.Instant?
        var scheduledAttempt: Int?
        var wait: String?
    }
    private let entries = Mutex<[String: Entry]>([:])
    private let clock = ContinuousClock()

    public init() {}

    public func begin(_ id: String, lockTTL: Duration, attempt: Int) async throws -> IdempotencyState {
        entries.withLock { entries in
            var entry = entries[id] ?? Entry()
            if entry.done { return .alreadyDone }
            if let scheduled = entry.scheduledAttempt, let expires = entry.expires, expires > clock.now {
                if attempt < scheduled { return .superseded }
                entry.scheduledAttempt = nil
            } else if entry.token != nil, let expires = entry.expires, expires > clock.now {
                return .busy
            }
            let token = UUID().uuidString
            let wait = entry.expires.map { $0 > clock.now } == true ? entry.wait : nil
            entry.token = token
            entry.expires = clock.now + lockTTL
            entry.wait = nil
            entries[id] = entry
            return wait.map { .acquiredOverWait(token: token, wait: $0) } ?? .acquired(token: token)
        }
    }

    public func complete(_ id: String, token: String, retention: Duration) async throws {
        entries.withLock { $0[id] = Entry(done: true, token: nil) }
    }

    public func abandon(_ id: String, token: String) async throws {
        entries.withLock { entries in
            if entries[id]?.token == token {
                entries[id]?.token = nil
                entries[id]?.expires = nil
            }
        }
    }

    public func postpone(_ id: String, token: String, untilAttempt attempt: Int, ttl: Duration) async throws {
        entries.withLock { entries in
            guard entries[id]?.token == token else { return }
            entries[id] = Entry(token: nil, expires: clock.now + ttl, scheduledAttempt: attempt)
        }
    }

    public func park(_ id: String, token: String, wait: String, ttl: Duration) async throws {
        entries.withLock { entries in
            guard entries[id]?.token == token else { return }
            entries[id] = Entry(token: nil, expires: clock.now + ttl, wait: wait)
        }
    }

    public func isDone(_ id: String) -> Bool { entries.withLock { $0[id]?.done ?? false } }
}
