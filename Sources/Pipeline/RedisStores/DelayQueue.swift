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
/// Keys (``Keyspace/delayQueue(_:)``) share the hash tag `{<name>}`:
/// `<prefix>delay:{<name>}:due` (ZSET id → due ms) and `:payloads` (HASH id → payload). Items
/// scheduled as waits are also indexed, in the same scripts, for the waiting gauges: `:waiting`
/// (ZSET id → band × 10¹³ + since ms) and `:waiting-bands` (HASH what a wait waits for → its
/// band, 0, 1, … in order of first use).
/// Each label owns a band of scores, so one `ZCOUNT` and one `ZRANGEBYSCORE … LIMIT 0 1` per
/// label read its count and its oldest wait however many items wait, and acknowledging an item
/// needs no lookup of its label: `ZREM` by id.
public struct DelayQueue: Sendable {
    /// Upper bound for one claim, keeping each script run short and its reply bounded.
    public static let maximumClaim = 1000

    private let client: RedisClient
    public let name: String
    private let names: Keyspace.DelayQueueKeys
    /// ``names`` in the order the scripts take them.
    private let keys: [String]

    public init(client: RedisClient, name: String, keyspace: Keyspace = .standard) {
        self.client = client
        self.name = name
        self.names = keyspace.delayQueue(name)
        self.keys = names.all
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
    /// - Parameters:
    ///   - waiting: for an item that is a wait: what it waits for (a label of few values) and
    ///     since when (UNIX ms); counted by ``waiting()`` until acknowledged.
    ///   - ifScheduled: what happens when `id` is scheduled already: nothing, or (for a restore
    ///     from the journal) its due time moves to this one if that is earlier.
    @discardableResult
    public func schedule(
        id: String, payload: [UInt8], after delay: Duration = .zero, notBefore unixMilliseconds: Int64,
        waiting: (on: String, sinceMilliseconds: Int64)? = nil, ifScheduled: ScheduledDelivery.IfScheduled = .keep
    ) async throws -> Bool {
        let added = try await client.execute(
            EVALSHA<Int64>(
                .scheduleDelayed,
                keys: keys,
                arguments: [
                    .string(id), .bytes(payload), .integer(delay.milliseconds(rounding: .up)),
                    .integer(unixMilliseconds), .string(waiting?.on ?? ""), .integer(waiting?.sinceMilliseconds ?? 0),
                    .integer(Self.band), .string(ifScheduled == .bringForward ? "1" : "0"),
                ]
            ))
        return added == 1
    }

    /// The waits scheduled and not acknowledged: how many per label, and the earliest `since`
    /// (UNIX ms) of them all. Two round trips: the labels, then two reads per label.
    public func waiting() async throws -> (counts: [String: Int], oldestSinceMilliseconds: Int64?) {
        let registry = try await client.execute(HGETALL(names.waitingBands))
        let bands: [(label: String, band: Int64)] = try registry.map { field, value in
            guard let band = Int64(String(decoding: value, as: UTF8.self)) else {
                throw RedisError(
                    code: .unexpectedReply, message: "\(names.waitingBands): the band of \(field) is no integer")
            }
            return (field, band)
        }
        guard !bands.isEmpty else { return ([:], nil) }
        var pipeline = RedisPipeline()
        let reads = bands.map { entry in
            let low = RedisScoreBound.inclusive(entry.band * Self.band)
            let high = RedisScoreBound.exclusive((entry.band + 1) * Self.band)
            return (
                label: entry.label, band: entry.band,
                count: pipeline.append(ZCOUNT(names.waiting, min: low, max: high)),
                first: pipeline.append(
                    ZRANGEBYSCORE.WithScores(names.waiting, min: low, max: high, limit: .init(offset: 0, count: 1)))
            )
        }
        let replies = try await client.execute(pipeline)
        var counts: [String: Int] = [:]
        var oldest: Int64?
        for read in reads {
            let count = try replies[read.count]
            if count > 0 { counts[read.label] = count }
            if let first = try replies[read.first].first {
                let since = Int64(first.score) - read.band * Self.band
                oldest = min(oldest ?? since, since)
            }
        }
        return (counts, oldest)
    }

    /// Claims up to `limit` (at most ``maximumClaim``) due items for `lease`: they are not
    /// handed to anyone else until the lease runs out.
    public func claimDue(limit: Int, lease: Duration) async throws -> [DelayedItem] {
        let capped = min(max(limit, 1), Self.maximumClaim)
        return try await client.execute(
            ClaimDelayed(keys: keys, limit: Int64(capped), leaseMilliseconds: lease.milliseconds(rounding: .up)))
    }

    /// Deletes the items; acknowledging an id that is gone is a no-op.
    public func acknowledge(_ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        _ = try await client.execute(
            EVALSHA<Int64>(.acknowledgeDelayed, keys: keys, arguments: ids.map(RedisValue.string)))
    }

    /// Items scheduled or claimed and not yet acknowledged.
    public func count() async throws -> Int {
        try await client.execute(ZCARD(names.due))
    }

    /// Time until the earliest item is due (zero if one is due now), nil when empty; pollers
    /// use it to sleep instead of spinning.
    public func nextDueIn() async throws -> Duration? {
        try await client.execute(EVALSHA<Int64?>(.nextDelayed, keys: keys)).map { Duration.milliseconds($0) }
    }
}

/// The claim script as a command: its reply, `{id, payload, …}`, decodes to the claimed items.
struct ClaimDelayed: RedisCommand {
    static var name: String { "EVALSHA" }

    let keys: [String]
    let limit: Int64
    let leaseMilliseconds: Int64

    func encode(into encoder: inout RedisCommandEncoder) {
        encoder.appendScript(.claimDelayed, keys: keys, arguments: [.integer(limit), .integer(leaseMilliseconds)])
    }

    func decode(_ reply: RedisReply) throws(RedisError) -> [DelayedItem] {
        let fields = try reply.decodeArray()
        guard fields.count % 2 == 0 else { throw RedisError.unexpected(reply, expected: "id and payload pairs") }
        var items: [DelayedItem] = []
        items.reserveCapacity(fields.count / 2)
        for index in stride(from: 0, to: fields.count, by: 2) {
            items.append(
                DelayedItem(id: try String(fromRedisReply: fields[index]), payload: try fields[index + 1].decodeBytes())
            )
        }
        return items
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
    /// waiting label ('' for a retry), waiting since ms, the band width, '1' to bring an
    /// already scheduled id forward to this due time (never later).
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
            elseif ARGV[8] == '1' then
              local current = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
              if due < current then
                redis.call('ZADD', KEYS[1], 'XX', string.format('%.0f', due), ARGV[1])
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
