import Basics
public import Redis

/// The storage of ``RedisRetryStore``, one per stage: delayed delivery for retries: items become claimable at a due time taken from the Redis
/// server's clock.
///
/// Claiming does not remove an item: ``claimDue(limit:lease:)`` pushes its due time to
/// now + lease, and only ``acknowledge(_:)`` (called after the item was re-published) deletes
/// it. A claimer that crashes in between loses nothing: the item comes back after the lease.
/// Delivery is therefore at-least-once; consumers dedupe with ``RedisIdempotencyGuard``.
///
/// Keys share the hash tag `{<name>}`: `iap:delay:{<name>}:due` (ZSET id → due ms),
/// `:payloads` (HASH id → payload) and `:claims` (HASH id → times claimed).
public struct DelayQueue: Sendable {
    /// Upper bound for one claim, keeping each script run short and its reply bounded.
    public static let maximumClaim = 1000

    private let client: RedisClient
    public let name: String
    private let keys: [String]

    public init(client: RedisClient, name: String) {
        self.client = client
        self.name = name
        let base = "iap:delay:{\(name)}"
        self.keys = [base + ":due", base + ":payloads", base + ":claims"]
    }

    /// Schedules `payload` under `id` to be due `after` from the server's now. Returns false
    /// (and changes nothing) when `id` is already scheduled, so a redelivered Kafka message
    /// cannot schedule its retry twice; give each attempt its own id (e.g. `<eventId>:<attempt>`).
    @discardableResult
    public func schedule(id: String, payload: [UInt8], after delay: Duration) async throws -> Bool {
        try await schedule(id: id, payload: payload, after: delay, notBefore: 0)
    }

    /// Schedules `payload` to be due at `max(server now + after, notBefore)`, where
    /// `notBefore` is UNIX milliseconds (Apple's `Retry-After` is given that way).
    @discardableResult
    public func schedule(id: String, payload: [UInt8], after delay: Duration = .zero, notBefore unixMilliseconds: Int64)
        async throws -> Bool
    {
        let reply = try await client.run(
            .scheduleDelayed,
            keys: keys,
            arguments: [
                .string(id), .bytes(payload), .integer(delay.milliseconds(rounding: .up)), .integer(unixMilliseconds),
            ]
        )
        return reply.integer == 1
    }

    /// Claims up to `limit` (at most ``maximumClaim``) due items for `lease`: they are not
    /// handed to anyone else until the lease runs out.
    public func claimDue(limit: Int, lease: Duration) async throws -> [DelayedItem] {
        let capped = min(max(limit, 1), Self.maximumClaim)
        let reply = try await client.run(
            .claimDelayed, keys: keys,
            arguments: [.integer(Int64(capped)), .integer(lease.milliseconds(rounding: .up))])
        guard let fields = reply.array, fields.count % 3 == 0 else {
            throw RedisError(code: .unexpectedReply, message: "delay queue claim returned \(reply)")
        }
        return try stride(from: 0, to: fields.count, by: 3).map { index in
            guard let id = fields[index].string, let payload = fields[index + 1].bytes,
                let claims = fields[index + 2].integer
            else {
                throw RedisError(code: .unexpectedReply, message: "delay queue claim returned \(reply)")
            }
            return DelayedItem(id: id, payload: payload, claimCount: Int(claims))
        }
    }

    /// Deletes the items; acknowledging an id that is gone is a no-op.
    public func acknowledge(_ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        _ = try await client.run(.acknowledgeDelayed, keys: keys, arguments: ids.map(RedisValue.string))
    }

    /// Items scheduled or claimed and not yet acknowledged.
    public func count() async throws -> Int {
        Int(try await client.send("ZCARD", .string(keys[0])).integer ?? 0)
    }

    /// Time until the earliest item is due (zero if one is due now), nil when empty; pollers
    /// use it to sleep instead of spinning.
    public func nextDueIn() async throws -> Duration? {
        try await client.run(.nextDelayed, keys: keys).integer.map { Duration.milliseconds($0) }
    }
}

/// A claimed item of a ``DelayQueue``.
public struct DelayedItem: Sendable, Hashable {
    public let id: String
    public let payload: [UInt8]
    /// How many times the item has been claimed, this claim included; above 1 means an
    /// earlier claimer's lease ran out without an acknowledgement.
    public let claimCount: Int

    public init(id: String, payload: [UInt8], claimCount: Int) {
        self.id = id
        self.payload = payload
        self.claimCount = claimCount
    }
}

extension RedisScript {
    /// KEYS due, payloads, claims; ARGV id, payload, delay ms, not-before ms.
    static let scheduleDelayed = RedisScript(
        ServerClock.nowMilliseconds + """
            local due = math.max(now_ms + tonumber(ARGV[3]), tonumber(ARGV[4]))
            local added = redis.call('ZADD', KEYS[1], 'NX', string.format('%.0f', due), ARGV[1])
            if added == 1 then
              redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
            end
            return added
            """
    )

    /// KEYS due, payloads, claims; ARGV limit, lease ms. Returns {id, payload, claims, ...}.
    /// Members are re-scored one by one (no unpack of large tables).
    static let claimDelayed = RedisScript(
        ServerClock.nowMilliseconds + """
            local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now_ms), 'LIMIT', 0, tonumber(ARGV[1]))
            local lease_until = string.format('%.0f', now_ms + tonumber(ARGV[2]))
            local out = {}
            for _, id in ipairs(ids) do
              local payload = redis.call('HGET', KEYS[2], id)
              if payload then
                redis.call('ZADD', KEYS[1], 'XX', lease_until, id)
                out[#out + 1] = id
                out[#out + 1] = payload
                out[#out + 1] = redis.call('HINCRBY', KEYS[3], id, 1)
              else
                redis.call('ZREM', KEYS[1], id)
              end
            end
            return out
            """
    )

    /// KEYS due, payloads, claims; ARGV ids.
    static let acknowledgeDelayed = RedisScript(
        """
        for _, id in ipairs(ARGV) do
          redis.call('ZREM', KEYS[1], id)
          redis.call('HDEL', KEYS[2], id)
          redis.call('HDEL', KEYS[3], id)
        end
        return 0
        """
    )

    /// KEYS due. Returns ms until the earliest due item (0 if due), or nil when empty.
    static let nextDelayed = RedisScript(
        ServerClock.nowMilliseconds + """
            local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
            if #first == 0 then
              return false
            end
            return math.max(0, tonumber(first[2]) - now_ms)
            """
    )
}
