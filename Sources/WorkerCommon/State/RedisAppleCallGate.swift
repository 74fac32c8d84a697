import AppStoreModels
import Basics
public import Pipeline
public import Purchases
public import Redis

/// ``AppleCallGate`` shared by every replica (verify, reconcile, grant's consumption answers)
/// through Redis: one ``GateTimeline`` per endpoint and environment, kept by one script that
/// reads the Redis server's clock, so replicas with skewed clocks book from one timeline.
///
/// Key (``Keyspace``): `iap:apple-gate:{<endpoint>:<environment>}` (with several apps,
/// `iap:apple-gate:{<bundleId>:<endpoint>:<environment>}`: Apple's limits are per app), the string
/// `<next>|<pause>`: when the budget is next free and until when Apple's 429 holds calls back
/// (ms), expiring a minute after both have passed. One string, so a booking costs a `GET` and a
/// `SET … PX` inside the script. Asking costs one round trip, a booking held or not; a 429 costs
/// one more.
///
/// Production calls get ``callsPerSecond``; every other environment (sandbox; Xcode and local
/// testing never reach Apple) gets ``sandboxRate``, a share of it, as Apple allows sandbox
/// about 10 % of production. With the budget off (`callsPerSecond` 0) only Apple's pauses
/// hold calls back, and the slots after a pause are spread at random over up to as long as the
/// pause (at most 10 s), since there is no rate to space them by.
public struct RedisAppleCallGate: AppleCallGate {
    /// The production budget per endpoint, in calls per second; 0 when the budget is off.
    public let callsPerSecond: Double
    /// The sandbox budget per endpoint (``callsPerSecond`` × the share); 0 when the budget is off.
    public let sandboxRate: Double
    /// Each endpoint's rules, production and every other environment: the budget, capped at
    /// Apple's own limit for the endpoint (``AppleCall/Endpoint/appleLimit``) and its share.
    private let rules: [AppleCall.Endpoint: (production: GateTimeline.Rules, sandbox: GateTimeline.Rules)]
    private let client: RedisClient
    private let keys: Keyspace
    /// The app whose calls this gate budgets (``AppSettings/gateScope``); nil in a single-app deployment.
    private let app: String?

    /// Whether calls are budgeted at all (`callsPerSecond > 0`).
    public var isEnabled: Bool { callsPerSecond > 0 }

    /// - Parameters:
    ///   - callsPerSecond: production calls per second per endpoint, shared by every replica
    ///     (Apple: 50/s for Get Transaction Info). **0 turns the budget off**: every call
    ///     proceeds unless Apple's own 429 paused its endpoint, for deployments that rely on
    ///     those 429s or run against the simulator. Must not be negative.
    ///   - sandboxShare: the sandbox budget as a share of the production one (Apple: 0.1);
    ///     must be positive. Sandbox gets at least 0.001 calls/s.
    ///   - lateness: how long after its slot a booking still lets its call through, in ms
    ///     (``GateTimeline/Rules/lateness``).
    ///   - app: the app whose calls it budgets (``AppSettings/gateScope``), nil for the one app of
    ///     a single-app deployment.
    public init(
        client: RedisClient, keys: Keyspace = .standard, callsPerSecond: Double = 50, sandboxShare: Double = 0.1,
        lateness: Int64 = GateTimeline.defaultLateness, app: String? = nil
    ) {
        precondition(
            callsPerSecond.isFinite && callsPerSecond >= 0,
            "callsPerSecond must be 0 (off) or positive, got \(callsPerSecond)")
        precondition(sandboxShare.isFinite && sandboxShare > 0, "sandboxShare must be positive, got \(sandboxShare)")
        self.client = client
        self.keys = keys
        self.app = app
        self.callsPerSecond = callsPerSecond
        self.sandboxRate = callsPerSecond > 0 ? max(callsPerSecond * sandboxShare, 0.001) : 0
        let production = GateTimeline.Rules(callsPerSecond: callsPerSecond, lateness: lateness)
        let sandbox = GateTimeline.Rules(callsPerSecond: sandboxRate, lateness: lateness)
        var rules: [AppleCall.Endpoint: (production: GateTimeline.Rules, sandbox: GateTimeline.Rules)] = [:]
        for endpoint in AppleCall.Endpoint.allCases {
            guard let limit = endpoint.appleLimit, callsPerSecond > limit else {
                rules[endpoint] = (production, sandbox)
                continue
            }
            rules[endpoint] = (
                GateTimeline.Rules(callsPerSecond: limit, lateness: lateness),
                GateTimeline.Rules(callsPerSecond: max(limit * sandboxRate / callsPerSecond, 0.001), lateness: lateness)
            )
        }
        self.rules = rules
    }

    public func acquire(_ call: AppleCall, holding booking: GateBooking?) async throws -> GateDecision {
        let booked = booking.flatMap { $0.call == call ? $0.at : nil } ?? 0
        return try await run(call, .askGate, [.integer(booked)])
    }

    public func backOff(_ call: AppleCall, for delay: Duration) async throws -> GateSlot {
        let decision = try await run(call, .pauseGate, [.integer(max(1, delay.milliseconds(rounding: .up)))])
        guard case .wait(let slot) = decision else {
            throw RedisError(code: .unexpectedReply, message: "the gate let a call through during Apple's pause")
        }
        return slot
    }

    /// Runs a gate script; both answer `{0}` (proceed) or `{1, slot ms, now ms, paused 0|1}`.
    private func run(_ call: AppleCall, _ script: RedisScript, _ arguments: [RedisValue]) async throws
        -> GateDecision
    {
        guard let endpoint = self.rules[call.endpoint] else {
            preconditionFailure("every endpoint's rules are made at init")
        }
        let rules = call.environment == .production ? endpoint.production : endpoint.sandbox
        let key = keys.appleGate(call.endpoint.rawValue, call.environment.rawValue, app: app)
        let fields = try await client.execute(
            EVALSHA<[Int64]>(
                script, keys: [key],
                arguments: [.string(String(rules.interval)), .string(String(rules.burst)), .integer(rules.lateness)]
                    + arguments))
        guard let verdict = fields.first else {
            throw RedisError(code: .unexpectedReply, message: "\(key): the Apple gate returned no verdict")
        }
        guard verdict == 1 else { return .proceed }
        guard fields.count == 4 else {
            throw RedisError(code: .unexpectedReply, message: "\(key): the Apple gate returned \(fields)")
        }
        var slot = fields[1]
        let now = fields[2]
        let paused = fields[3]
        if paused == 1 && rules.interval == 0 {
            var generator = SystemRandomNumberGenerator()
            slot = GateTimeline.spreadWithoutBudget(slot: slot, now: now, using: &generator)
        }
        return .wait(
            GateSlot(
                delay: .milliseconds(max(0, slot - now)), booking: GateBooking(call, at: slot),
                cause: paused == 1 ? .applePause : .budget))
    }
}

extension RedisScript {
    /// ``GateTimeline`` in Lua: the state, its `book` and the reply. Defines `ask_gate` for
    /// the scripts below. KEYS gate; ARGV interval ms, burst ms, lateness ms, then the script's own.
    private static let gateTimeline =
        ServerClock.nowMilliseconds + """
            local interval = tonumber(ARGV[1])
            local burst = tonumber(ARGV[2])
            local lateness = tonumber(ARGV[3])
            local next_free, pause = 0, 0
            local state = redis.call('GET', KEYS[1])
            if state then
              local n, p = string.match(state, '^([^|]+)|(.+)$')
              next_free, pause = tonumber(n) or 0, tonumber(p) or 0
            end

            local function save()
              local ends = math.max(next_free, pause)
              redis.call(
                'SET', KEYS[1], string.format('%.3f|%.0f', next_free, pause),
                'PX', math.max(0, math.ceil(ends - now_ms)) + 60000)
            end

            local function wait(slot, paused)
              save()
              return {1, math.ceil(slot), now_ms, paused and 1 or 0}
            end

            local function book()
              local paused = pause > now_ms
              if interval == 0 then
                if paused then return wait(pause, true) end
                return {0}
              end
              local start = math.max(next_free, math.max(now_ms, pause))
              if (not paused) and start - burst <= now_ms then
                next_free = start + interval
                save()
                return {0}
              end
              next_free = start + interval
              if paused then return wait(start, true) end
              return wait(math.max(start - burst, now_ms), false)
            end

            """

    /// KEYS gate; ARGV interval, burst, lateness, the booked slot (0 for none). ``GateTimeline/ask(now:booked:rules:)``.
    static let askGate = RedisScript(
        gateTimeline + """
            local booked = tonumber(ARGV[4])
            if booked > 0 and pause <= now_ms then
              if booked > now_ms then
                if interval > 0 then next_free = math.max(next_free, booked + interval) end
                return wait(booked, false)
              end
              if now_ms - booked <= lateness then return {0} end
            end
            return book()
            """
    )

    /// KEYS gate; ARGV interval, burst, lateness, the pause in ms. ``GateTimeline/pause(until:now:rules:)``.
    static let pauseGate = RedisScript(
        gateTimeline + """
            pause = math.max(pause, now_ms + tonumber(ARGV[4]))
            return book()
            """
    )
}
