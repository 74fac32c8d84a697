import Basics
import Logging
import Synchronization

/// When a client's connections may try to (re)connect, and the one log line per change of
/// the client's connection state.
///
/// Shared by all lanes of a ``RedisClient``, so the pool backs off as one: after the n-th
/// failed attempt in a row the next is allowed only after the policy's capped, jittered delay
/// (``RedisConfiguration/Reconnect``), whichever lane asks, and a wrong password costs one
/// `AUTH` per delay rather than one per command. A lane whose next attempt is due within the
/// connect timeout sleeps until then (a short blip costs callers a short wait, not an error);
/// one due later fails its batch at once with the last failure's code.
///
/// Logged: `redis connected` (first connection), `redis unavailable` / `redis connection lost`
/// (the state turned bad, with the error), `redis reconnect failed` (the first attempt after a
/// loss failed, with why), `redis still unavailable` (only when the reason changes, e.g.
/// refused → wrong password), `redis reconnected` (with the failed attempts and how long it
/// was down). Never one line per attempt.
final class ReconnectGate: Sendable {
    enum Permission: Equatable {
        /// Connect now.
        case attempt
        /// The next attempt is due after this; sleep, then ask again.
        case wait(Duration)
        /// Fail the batch with this; the next attempt is too far away to wait for.
        case refuse(RedisError)
    }

    enum Phase: Sendable, Equatable {
        /// No connection has succeeded yet.
        case starting
        case connected
        /// The last attempt failed or a connection broke; attempts are paced.
        case down
    }

    private struct State {
        var phase = Phase.starting
        /// Failed attempts since the last success.
        var failures = 0
        var nextAttempt: ContinuousClock.Instant?
        var lastError: RedisError?
        var downSince: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let policy: RedisConfiguration.Reconnect
    private let waitLimit: Duration
    private let logger: Logger
    private let target: String

    init(configuration: RedisConfiguration, logger: Logger) {
        self.policy = configuration.reconnect
        self.waitLimit = configuration.connectTimeout
        self.logger = logger
        self.target = configuration.description
    }

    /// Whether a lane without a connection may connect now.
    func permission(now: ContinuousClock.Instant = .now) -> Permission {
        state.withLock { state in
            guard state.phase == .down else { return .attempt }
            guard let next = state.nextAttempt, now < next else {
                // Reserved for this attempt: other lanes wait for its outcome.
                state.nextAttempt = now + jittered(policy.delay(afterFailures: state.failures + 1))
                return .attempt
            }
            let remaining = next - now
            if remaining <= waitLimit { return .wait(remaining) }
            let last = state.lastError ?? RedisError(code: .connectionFailed, message: target)
            return .refuse(
                RedisError(
                    code: last.code,
                    message: "\(last.message) (reconnecting; next attempt in "
                        + "\(remaining.milliseconds(rounding: .up)) ms)"))
        }
    }

    /// A lane connected (and authenticated).
    func connected(now: ContinuousClock.Instant = .now) {
        let previous = state.withLock { state in
            defer { state = State(phase: .connected) }
            return state
        }
        switch previous.phase {
        case .starting: logger.info("redis connected", metadata: ["redis": "\(target)"])
        case .connected: break
        case .down:
            let downFor = previous.downSince.map { (now - $0).milliseconds(rounding: .up) } ?? 0
            logger.info(
                "redis reconnected",
                metadata: [
                    "redis": "\(target)", "failed_attempts": "\(previous.failures)", "down_ms": "\(downFor)",
                ])
        }
    }

    /// A connection attempt failed.
    func failed(_ error: RedisError, now: ContinuousClock.Instant = .now) {
        let (previous, failures) = state.withLock { state in
            let previous = state
            state.failures += 1
            state.nextAttempt = now + jittered(policy.delay(afterFailures: state.failures))
            state.lastError = error
            if state.phase != .down {
                state.phase = .down
                state.downSince = now
            }
            return (previous, state.failures)
        }
        let metadata: Logger.Metadata = ["redis": "\(target)", "error": "\(error)"]
        switch previous.phase {
        case .starting: logger.warning("redis unavailable; retrying with backoff", metadata: metadata)
        case .connected: logger.warning("redis connection lost; reconnecting with backoff", metadata: metadata)
        case .down:
            guard let last = previous.lastError else {
                logger.warning("redis reconnect failed; retrying with backoff", metadata: metadata)
                return
            }
            if last.code != error.code || last.message != error.message {
                logger.warning(
                    "redis still unavailable; the reason changed",
                    metadata: metadata.merging(["failed_attempts": "\(failures)"]) { $1 })
            }
        }
    }

    /// An established connection broke: the first loss while connected turns the state down
    /// (the next attempt is immediate); losses while down change nothing.
    func lost(_ error: RedisError, now: ContinuousClock.Instant = .now) {
        let turnedDown = state.withLock { state in
            guard state.phase == .connected else { return false }
            state.phase = .down
            state.downSince = now
            state.failures = 0
            state.nextAttempt = nil
            state.lastError = nil
            return true
        }
        if turnedDown {
            logger.warning(
                "redis connection lost; reconnecting", metadata: ["redis": "\(target)", "error": "\(error)"])
        }
    }

    /// Up to half of `delay` taken off at random, so replicas that failed together do not
    /// retry in step; never less than half, so a small delay still paces attempts.
    private func jittered(_ delay: Duration) -> Duration {
        delay * Double.random(in: 0.5...1)
    }
}
