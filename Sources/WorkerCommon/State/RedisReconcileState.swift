import Foundation
public import Pipeline
public import Redis

/// Reconcile's progress and leases in Redis (decision D32).
///
/// A scope (`<bundleId>:<environment>`, or `sweep`) is worked on by whoever holds its lease
/// (`SET NX PX` with a random token). The checkpoint is written by a script that first checks
/// the lease still holds the writer's token and extends it: a replica that lost its lease (a
/// long pause) cannot move the checkpoint, so two replicas never page the same window from
/// it. The worst a paused holder can do is publish one page again, which verify's
/// notificationUUID guard makes a no-op.
public struct RedisReconcileState: ReconcileStateStore {
    private let client: RedisClient
    private let lock: RedisLock
    public let keys: Keyspace

    public init(client: RedisClient, keys: Keyspace = .standard) {
        self.client = client
        self.lock = RedisLock(client: client)
        self.keys = keys
    }

    public func checkpoint(_ scope: String) async throws -> ReconcileCheckpoint? {
        let key = keys.reconcileCheckpoint(scope)
        guard let json = try await client.execute(GET(key)) else { return nil }
        return try StateStorage.decode(ReconcileCheckpoint.self, from: json, key: key)
    }

    public func acquire(_ scope: String, ttl: Duration) async throws -> ReconcileLease? {
        let key = keys.reconcileLease(scope)
        return try await lock.acquire(key, ttl: ttl).map { ReconcileLease(scope: scope, token: $0, ttl: ttl) }
    }

    public func save(_ checkpoint: ReconcileCheckpoint, holding lease: ReconcileLease) async throws -> Bool {
        try await client.execute(
            EVALSHA<Int64>(
                .saveReconcileCheckpoint,
                keys: [keys.reconcileLease(lease.scope), keys.reconcileCheckpoint(lease.scope)],
                arguments: [
                    .string(lease.token.value), .integer(StateStorage.milliseconds(lease.ttl)),
                    try StateStorage.encode(checkpoint),
                ]
            )) == 1
    }

    public func extend(_ lease: ReconcileLease) async throws -> Bool {
        try await lock.extend(keys.reconcileLease(lease.scope), token: lease.token, ttl: lease.ttl)
    }

    public func release(_ lease: ReconcileLease) async throws {
        try await lock.release(keys.reconcileLease(lease.scope), token: lease.token)
    }
}

/// The Redis form of ``SubscriptionExpiryIndex``: ``Keyspace/subscriptionExpiries``, which
/// ``RedisEntitlementStateStore`` keeps.
public struct RedisSubscriptionExpiryIndex: SubscriptionExpiryIndex {
    private let client: RedisClient
    public let keys: Keyspace

    public init(client: RedisClient, keys: Keyspace = .standard) {
        self.client = client
        self.keys = keys
    }

    public func due(before instant: Int64, limit: Int) async throws -> [String] {
        try await client.execute(
            ZRANGEBYSCORE(
                keys.subscriptionExpiries, min: .negativeInfinity, max: .inclusive(instant),
                limit: .init(offset: 0, count: Int64(limit))))
    }

    public func sample(_ count: Int) async throws -> [String] {
        guard count > 0 else { return [] }
        return try await client.execute(ZRANDMEMBER(keys.subscriptionExpiries, count: Int64(count)))
    }

    public func remove(_ originalTransactionId: String) async throws {
        _ = try await client.execute(ZREM(keys.subscriptionExpiries, members: [.string(originalTransactionId)]))
    }
}

extension RedisScript {
    /// KEYS[1] lease, KEYS[2] checkpoint; ARGV[1] token, ARGV[2] lease ttl ms, ARGV[3] checkpoint
    /// JSON. Writes the checkpoint and extends the lease only while the lease holds the token.
    static let saveReconcileCheckpoint = RedisScript(
        """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then
          return 0
        end
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        redis.call('SET', KEYS[2], ARGV[3])
        return 1
        """
    )
}
