import AppStore
import Basics
public import Purchases
public import Redis

/// ``AppleCallGate`` shared by every verify replica through Redis: one token bucket per
/// endpoint and environment on the Redis module's `RateLimiter`, measured with the Redis
/// server's clock.
///
/// Key: `iap:rate:{<prefix>apple:<endpoint>:<environment>}` (e.g.
/// `iap:rate:{iap:apple:transactionInfo:Production}`), a hash the limiter expires about one
/// refill after its last use. The `iap:rate:` part is the `RateLimiter`'s own; ``StateKeys``
/// supplies the name.
///
/// Production calls get ``callsPerSecond``; every other environment (sandbox; Xcode and local
/// testing never reach Apple) gets ``sandboxRate``, a share of it, as Apple allows sandbox
/// about 10 % of production. Each bucket holds one second of its budget (at least one call).
/// A refused call answers `.wait(d)` with the time until the bucket has a token again; verify
/// turns that into a delayed retry.
///
/// Apple's own 429s pause the endpoint for every replica: ``backOff(_:for:)`` sets
/// `iap:apple-pause:{<endpoint>:<environment>}` with the `Retry-After` as its expiry, and
/// ``acquire(_:)`` answers `.wait` while it exists, budget or not.
public struct RedisAppleCallGate: AppleCallGate {
    /// The production budget per endpoint, in calls per second; 0 when the gate is off.
    public let callsPerSecond: Double
    /// The sandbox budget per endpoint (``callsPerSecond`` × the share); 0 when the gate is off.
    public let sandboxRate: Double
    /// Nil when the gate is off.
    private let limiters: (production: RateLimiter, sandbox: RateLimiter)?
    private let client: RedisClient
    private let keys: StateKeys

    /// Whether calls are limited at all (`callsPerSecond > 0`).
    public var isEnabled: Bool { limiters != nil }

    /// - Parameters:
    ///   - callsPerSecond: production calls per second per endpoint, shared by every replica
    ///     (Apple: 50/s for Get Transaction Info). **0 turns the budget off**: every call
    ///     proceeds unless Apple's own 429 paused its endpoint, for deployments that rely on
    ///     those 429s or run against the simulator. Must not be negative.
    ///   - sandboxShare: the sandbox budget as a share of the production one (Apple: 0.1);
    ///     must be positive. Sandbox gets at least 0.001 calls/s.
    public init(
        client: RedisClient, keys: StateKeys = .standard, callsPerSecond: Double = 50, sandboxShare: Double = 0.1
    ) {
        precondition(
            callsPerSecond.isFinite && callsPerSecond >= 0,
            "callsPerSecond must be 0 (off) or positive, got \(callsPerSecond)")
        precondition(sandboxShare.isFinite && sandboxShare > 0, "sandboxShare must be positive, got \(sandboxShare)")
        self.client = client
        self.keys = keys
        guard callsPerSecond > 0 else {
            self.callsPerSecond = 0
            self.sandboxRate = 0
            self.limiters = nil
            return
        }
        let sandboxRate = max(callsPerSecond * sandboxShare, 0.001)
        func limiter(_ rate: Double) -> RateLimiter {
            RateLimiter(
                client: client, name: keys.appleRateLimiterName, permitsPerSecond: rate, burst: max(1, Int(rate)))
        }
        self.callsPerSecond = callsPerSecond
        self.sandboxRate = sandboxRate
        self.limiters = (limiter(callsPerSecond), limiter(sandboxRate))
    }

    public func acquire(_ call: AppleCall) async throws -> GateDecision {
        let paused = try await client.send("PTTL", .string(pauseKey(call))).integer ?? 0
        if paused > 0 { return .wait(.milliseconds(paused)) }
        guard let limiters else { return .proceed }
        let limiter = call.environment == .production ? limiters.production : limiters.sandbox
        switch try await limiter.tryAcquire("\(call.endpoint.rawValue):\(call.environment.rawValue)") {
        case .admitted: return .proceed
        case .retry(let after): return .wait(after)
        }
    }

    public func backOff(_ call: AppleCall, for delay: Duration) async throws {
        let milliseconds = max(1, delay.milliseconds(rounding: .up))
        _ = try await client.run(.extendPause, keys: [pauseKey(call)], arguments: [.string(String(milliseconds))])
    }

    private func pauseKey(_ call: AppleCall) -> String {
        keys.applePause(call.endpoint.rawValue, call.environment.rawValue)
    }
}

extension RedisScript {
    /// KEYS pause; ARGV milliseconds. Sets the pause unless a longer one is in force already, so
    /// a replica's later, shorter `Retry-After` never cuts another's short.
    static let extendPause = RedisScript(
        """
        if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
          redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
        end
        return 1
        """
    )
}
