/// A token bucket shared by every worker through Redis (e.g. Apple's per-app API limits).
///
/// The bucket refills at `permitsPerSecond` up to `burst`, measured with the Redis server's
/// clock inside one script, so concurrent workers with skewed clocks draw from one budget.
/// Key: `iap:rate:{<name>:<key>}` (a hash with the token count and last refill time).
public struct RateLimiter: Sendable {
    private let client: RedisClient
    public let name: String
    public let permitsPerSecond: Double
    public let burst: Int

    public init(client: RedisClient, name: String, permitsPerSecond: Double, burst: Int) {
        precondition(permitsPerSecond > 0 && burst > 0, "a rate limiter needs a positive rate and burst")
        self.client = client
        self.name = name
        self.permitsPerSecond = permitsPerSecond
        self.burst = burst
    }

    /// Takes one permit for `key` if available, else says how long until one will be.
    public func tryAcquire(_ key: String = "default") async throws -> RateLimitDecision {
        let reply = try await client.run(
            .takeToken,
            keys: ["iap:rate:{\(name):\(key)}"],
            arguments: [.string(String(permitsPerSecond)), .integer(Int64(burst))]
        )
        guard let waitMicroseconds = reply.integer else {
            throw RedisError(code: .unexpectedReply, message: "rate limiter returned \(reply)")
        }
        return waitMicroseconds <= 0 ? .admitted : .retry(after: .microseconds(waitMicroseconds))
    }

    /// Waits (sleeping, not spinning) until a permit for `key` is granted; throws
    /// `CancellationError` if the task is cancelled while waiting.
    public func acquire(_ key: String = "default") async throws {
        while case .retry(let delay) = try await tryAcquire(key) {
            try await Task.sleep(for: delay)
        }
    }
}

/// The answer of ``RateLimiter/tryAcquire(_:)``.
public enum RateLimitDecision: Sendable, Hashable {
    case admitted
    /// No permit now; one is expected after this delay (others may take it first).
    case retry(after: Duration)
}

extension RedisScript {
    /// KEYS bucket; ARGV permits per second, burst. Returns 0 when admitted, else the wait in
    /// microseconds until a token is available.
    static let takeToken = RedisScript(
        """
        local rate = tonumber(ARGV[1])
        local burst = tonumber(ARGV[2])
        local server_time = redis.call('TIME')
        local now_us = tonumber(server_time[1]) * 1000000 + tonumber(server_time[2])
        local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
        local tokens = tonumber(state[1]) or burst
        local at = tonumber(state[2]) or now_us
        tokens = math.min(burst, tokens + math.max(0, now_us - at) * rate / 1000000)
        local wait = 0
        if tokens >= 1 then
          tokens = tokens - 1
        else
          wait = math.ceil((1 - tokens) * 1000000 / rate)
        end
        redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.0f', now_us))
        redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
        return wait
        """
    )
}
