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
/// Keys share the hash tag `{<name>}`: `iap:delay:{<name>}:due` (ZSET id → due ms) and
/// `:payloads` (HASH id → payload). Items scheduled as waits are also indexed, in the same
/// scripts, for the waiting gauges: `:waiting` (ZSET id → band × 10¹³ + since ms) and
/// `:waiting-bands` (HASH what a wait waits for → its band, 0, 1, … in order of first use).
/// Each label owns a band of scores, so one `ZCOUNT` and one `ZRANGEBYSCORE … LIMIT 0 1` per
/// label read its count and its oldest wait however many items wait, and acknowledging an item
/// needs no lookup of its label: `ZREM` by id.
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
        self.keys = [base + ":due", base + ":payloads", base + ":waiting", base + ":waiting-bands"]
    }

    /// The width of one label's band of `:waiting` scores: more milliseconds than since the
    /// epoch (until the year 2286), few enough bands times it to stay exact in a double.
    static let band: Int64 = 10_000_000_000_000

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
                .string(waiting?.on ?? ""), .integer(waiting?.sinceMilliseconds ?? 0), .integer(Self.band),
            ]
        )
        return reply.integer == 1
    }

    /// The waits scheduled and not acknowledged: how many per label, and the earliest `since`
    /// (UNIX ms) of them all. Two round trips: the labels, then two reads per label.
    public func waiting() async throws -> (counts: [String: Int], oldestSinceMilliseconds: Int64?) {
        let registry = try await client.send("HGETALL", .string(keys[3]))
        guard let fields = registry.array, fields.count % 2 == 0 else {
            throw RedisError(code: .unexpectedReply, message: "delay queue wait bands returned \(registry)")
        }
        let bands: [(label: String, band: Int64)] = try stride(from: 0, to: fields.count, by: 2).map { index in
            guard let label = fields[index].string, let band = fields[index + 1].string.flatMap(Int64.init) else {
                throw RedisError(code: .unexpectedReply, message: "delay queue wait bands returned \(registry)")
            }
            return (label, band)
        }
        guard !bands.isEmpty else { return ([:], nil) }
        let replies = try await client.pipeline(
            bands.flatMap { entry -> [[RedisValue]] in
                let low = RedisValue.integer(entry.band * Self.band)
                let high = RedisValue.string("(\((entry.band + 1) * Self.band)")
                return [
                    ["ZCOUNT", .string(keys[2]), low, high],
                    ["ZRANGEBYSCORE", .string(keys[2]), low, high, "WITHSCORES", "LIMIT", "0", "1"],
                ]
            })
        var counts: [String: Int] = [:]
        var oldest: Int64?
        for (index, entry) in bands.enumerated() {
            guard let count = replies[2 * index].integer, let first = replies[2 * index + 1].array else {
                throw RedisError(code: .unexpectedReply, message: "delay queue waiting read returned \(replies)")
            }
            if count > 0 { counts[entry.label] = Int(count) }
            if first.count == 2, let score = first[1].string.flatMap(Double.init) {
                let since = Int64(score) - entry.band * Self.band
                oldest = min(oldest ?? since, since)
            }
        }
        return (counts, oldest)
    }

    /// Claims up to `limit` (at most ``maximumClaim``) due items for `lease`: they are not
    /// handed to anyone else until the lease runs out.
    public func claimDue(limit: Int, lease: Duration) async throws -> [DelayedItem] {
        let capped = min(max(limit, 1), Self.maximumClaim)
        let reply = try await client.run(
            .claimDelayed, keys: keys,
            arguments: [.integer(Int64(capped)), .integer(lease.milliseconds(rounding: .up))])
        guard let fields = reply.array, fields.count % 2 == 0 else {
            throw RedisError(code: .unexpectedReply, message: "delay queue claim returned \(reply)")
        }
        return try stride(from: 0, to: fields.count, by: 2).map { index in
            guard let id = fields[index].string, let payload = fields[index + 1].bytes else {
                throw RedisError(code: .unexpectedReply, message: "delay queue claim returned \(reply)")
            }
            return DelayedItem(id: id, payload: payload)
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

    public init(id: String, payload: [UInt8]) {
        self.id = id
        self.payload = payload
    }
}

extension RedisScript {
    /// KEYS due, payloads, waiting, waiting-bands; ARGV id, payload, delay ms, not-before ms,
    /// waiting label ('' for a retry), waiting since ms, the band width.
    static let scheduleDelayed = RedisScript(
        ServerClock.nowMilliseconds + """
            local due = math.max(now_ms + tonumber(ARGV[3]), tonumber(ARGV[4]))
            local added = redis.call('ZADD', KEYS[1], 'NX', string.format('%.0f', due), ARGV[1])
            if added == 1 then
              redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
              if ARGV[5] ~= '' then
                local band = redis.call('HGET', KEYS[4], ARGV[5])
                if not band then
                  band = redis.call('HLEN', KEYS[4])
                  redis.call('HSET', KEYS[4], ARGV[5], band)
                end
                local score = tonumber(band) * tonumber(ARGV[7]) + tonumber(ARGV[6])
                redis.call('ZADD', KEYS[3], string.format('%.0f', score), ARGV[1])
              end
            end
            return added
            """
    )

    /// KEYS due, payloads, waiting, waiting-bands; ARGV limit, lease ms. Returns
    /// {id, payload, ...}. Members are re-scored one by one (no unpack of large tables).
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
              else
                redis.call('ZREM', KEYS[1], id)
                redis.call('ZREM', KEYS[3], id)
              end
            end
            return out
            """
    )

    /// KEYS due, payloads, waiting, waiting-bands; ARGV ids.
    static let acknowledgeDelayed = RedisScript(
        """
        for _, id in ipairs(ARGV) do
          redis.call('ZREM', KEYS[1], id)
          redis.call('HDEL', KEYS[2], id)
          redis.call('ZREM', KEYS[3], id)
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
