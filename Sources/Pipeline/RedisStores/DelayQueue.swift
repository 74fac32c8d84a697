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
/// `:payloads` (HASH id → payload) and `:claims` (HASH id → times claimed). Items scheduled as
/// waits are also counted, in the same scripts: `:waiting` (ZSET id → since ms), `:waiting-on`
/// (HASH id → what it waits for) and `:waiting-counts` (HASH what → items), so the waiting
/// gauges cost two reads, however many items wait.
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
        self.keys = [
            base + ":due", base + ":payloads", base + ":claims", base + ":waiting", base + ":waiting-on",
            base + ":waiting-counts",
        ]
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
    ///
    /// - Parameter waiting: for an item that is a wait: what it waits for (a label of few
    ///   values) and since when (UNIX ms); counted by ``waiting()`` until acknowledged.
    @discardableResult
    public func schedule(
        id: String, payload: [UInt8], after delay: Duration = .zero, notBefore unixMilliseconds: Int64,
        waiting: (on: String, sinceMilliseconds: Int64)? = nil
    ) async throws -> Bool {
        let reply = try await client.run(
            .scheduleDelayed,
            keys: keys,
            arguments: [
                .string(id), .bytes(payload), .integer(delay.milliseconds(rounding: .up)), .integer(unixMilliseconds),
                .string(waiting?.on ?? ""), .integer(waiting?.sinceMilliseconds ?? 0),
            ]
        )
        return reply.integer == 1
    }

    /// The waits scheduled and not acknowledged: how many per label, and the earliest `since`
    /// (UNIX ms) of them all.
    public func waiting() async throws -> (counts: [String: Int], oldestSinceMilliseconds: Int64?) {
        let replies = try await client.pipeline([
            ["HGETALL", .string(keys[5])], ["ZRANGE", .string(keys[3]), "0", "0", "WITHSCORES"],
        ])
        guard let fields = replies[0].array, fields.count % 2 == 0, let oldest = replies[1].array else {
            throw RedisError(code: .unexpectedReply, message: "delay queue waiting read returned \(replies)")
        }
        var counts: [String: Int] = [:]
        for index in stride(from: 0, to: fields.count, by: 2) {
            guard let label = fields[index].string, let count = fields[index + 1].string.flatMap(Int.init) else {
                throw RedisError(code: .unexpectedReply, message: "delay queue waiting counts returned \(replies[0])")
            }
            if count > 0 { counts[label] = count }
        }
        let since = oldest.count == 2 ? oldest[1].string.flatMap(Double.init).map { Int64($0) } : nil
        return (counts, since)
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
    /// Lua that forgets the wait of item `id` (a no-op for a retry): its `since`, its label and
    /// its count. KEYS as every delay queue script: due, payloads, claims, waiting, waiting-on,
    /// waiting-counts.
    private static let forgetWait = """
        local function forget_wait(id)
          local on = redis.call('HGET', KEYS[5], id)
          if on then
            redis.call('HDEL', KEYS[5], id)
            redis.call('ZREM', KEYS[4], id)
            if redis.call('HINCRBY', KEYS[6], on, -1) <= 0 then
              redis.call('HDEL', KEYS[6], on)
            end
          end
        end

        """

    /// KEYS due, payloads, claims, waiting, waiting-on, waiting-counts; ARGV id, payload,
    /// delay ms, not-before ms, waiting label ('' for a retry), waiting since ms.
    static let scheduleDelayed = RedisScript(
        ServerClock.nowMilliseconds + """
            local due = math.max(now_ms + tonumber(ARGV[3]), tonumber(ARGV[4]))
            local added = redis.call('ZADD', KEYS[1], 'NX', string.format('%.0f', due), ARGV[1])
            if added == 1 then
              redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
              if ARGV[5] ~= '' then
                redis.call('ZADD', KEYS[4], ARGV[6], ARGV[1])
                redis.call('HSET', KEYS[5], ARGV[1], ARGV[5])
                redis.call('HINCRBY', KEYS[6], ARGV[5], 1)
              end
            end
            return added
            """
    )

    /// KEYS due, payloads, claims, waiting, waiting-on, waiting-counts; ARGV limit, lease ms.
    /// Returns {id, payload, claims, ...}. Members are re-scored one by one (no unpack of large
    /// tables).
    static let claimDelayed = RedisScript(
        ServerClock.nowMilliseconds + forgetWait + """
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
                forget_wait(id)
              end
            end
            return out
            """
    )

    /// KEYS due, payloads, claims, waiting, waiting-on, waiting-counts; ARGV ids.
    static let acknowledgeDelayed = RedisScript(
        forgetWait + """
            for _, id in ipairs(ARGV) do
              redis.call('ZREM', KEYS[1], id)
              redis.call('HDEL', KEYS[2], id)
              redis.call('HDEL', KEYS[3], id)
              forget_wait(id)
            end
            return 0
            """
    )

    /// KEYS due (and the others, unused). Returns ms until the earliest due item (0 if due), or nil when empty.
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
