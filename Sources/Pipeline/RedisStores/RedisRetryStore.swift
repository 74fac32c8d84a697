import Foundation
public import Redis

/// `RetryStore` on a Redis delay queue, one per stage (decision D4): scheduling is idempotent
/// per retry id and claims are leased, so neither a crash nor a duplicate loses a retry.
public struct RedisRetryStore: RetryStore {
    private let queue: DelayQueue

    public init(client: RedisClient, stage: String, keyspace: Keyspace = .standard) {
        queue = DelayQueue(client: client, name: "retry:\(stage)", keyspace: keyspace)
    }

    public func schedule(_ delivery: ScheduledDelivery, ifScheduled: ScheduledDelivery.IfScheduled) async throws {
        let notBefore = delivery.notBefore.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.up)) } ?? 0
        _ = try await queue.schedule(
            id: delivery.id, payload: delivery.payload, after: delivery.delay, notBefore: notBefore,
            waiting: delivery.waiting.map { ($0.on, $0.since.unixMilliseconds) }, ifScheduled: ifScheduled)
    }

    public func claimDue(limit: Int, lease: Duration) async throws -> [ClaimedRetry] {
        try await queue.claimDue(limit: min(limit, DelayQueue.maximumClaim), lease: lease).map {
            ClaimedRetry(id: $0.id, payload: $0.payload)
        }
    }

    public func acknowledge(_ ids: [String]) async throws {
        try await queue.acknowledge(ids)
    }

    public func depth() async throws -> Int {
        try await queue.count()
    }

    public func waiting() async throws -> WaitingSummary {
        let (counts, oldest) = try await queue.waiting()
        return WaitingSummary(
            counts: counts, oldestSince: oldest.map { Date(timeIntervalSince1970: Double($0) / 1000) })
    }
}
