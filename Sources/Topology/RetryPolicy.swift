import Basics
import Foundation

/// How a stage spaces out retries of a failing message before dead-lettering it.
///
/// Delays grow exponentially from `initialBackoff` by `multiplier`, are spread by ±`jitter`
/// (a fraction) so many failures from one outage don't retry in lockstep, are capped at
/// `maxBackoff`, and are never shorter than a server-given Retry-After.
public struct RetryPolicy: Sendable, Hashable, Decodable {
    public var initialBackoff: Duration
    public var maxBackoff: Duration
    public var multiplier: Double
    /// Fraction in 0...1: a delay `d` becomes uniform in `d·(1-jitter) ... d·(1+jitter)`, then capped.
    public var jitter: Double
    /// Attempts in total, the first included; after that the message goes to `<topic>.dlq`.
    /// Only failures count: a wait (for an order, for Apple's rate budget) is not an attempt.
    public var maxAttempts: Int
    /// How long a record may wait in all (``StageOutcome``'s `wait`, from when it first waited)
    /// before it goes to `<topic>.dlq` instead of waiting again: a purchase that waited this long
    /// for its turn at Apple is one an operator must look at.
    public var maxWait: Duration

    /// A record may wait three days by default: longer than any Apple outage on record and than
    /// a backlog of days at Apple's rate limits, short enough that an operator hears of a
    /// purchase stuck behind a budget that can never drain.
    public static let defaultMaxWait: Duration = .seconds(72 * 3600)

    public init(
        initialBackoff: Duration = .seconds(1),
        maxBackoff: Duration = .seconds(300),
        multiplier: Double = 2,
        jitter: Double = 0.2,
        maxAttempts: Int = 10,
        maxWait: Duration = RetryPolicy.defaultMaxWait
    ) {
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.multiplier = multiplier
        self.jitter = jitter
        self.maxAttempts = maxAttempts
        self.maxWait = maxWait
    }

    /// The wait before retry number `attempt` (1 = the first retry), at least `retryAfter`.
    public func delay(forAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(forAttempt: attempt, retryAfter: retryAfter, using: &generator)
    }

    /// As ``delay(forAttempt:retryAfter:)`` with an injected random source (for tests).
    public func delay(
        forAttempt attempt: Int, retryAfter: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Duration {
        let cap = maxBackoff.seconds
        let base = baseSeconds(forAttempt: attempt)
        let spread = base * jitter
        let jittered = min(max(base + Double.random(in: -spread...spread, using: &generator), 0), cap)
        return max(.seconds(jittered), retryAfter ?? .zero)
    }

    /// The longest a record can spend in retries before it is dead-lettered: every delay at
    /// its jitter's upper end (within the cap). What must outlast it (idempotency markers) is
    /// derived from it (`StageLayout.idempotencyRetention`).
    public var horizon: Duration {
        var total: Duration = .zero
        for attempt in stride(from: 1, to: maxAttempts, by: 1) {
            total += .seconds(min(baseSeconds(forAttempt: attempt) * (1 + jitter), maxBackoff.seconds))
        }
        return total
    }

    /// The un-jittered delay before retry `attempt`, in seconds: exponential growth, capped.
    private func baseSeconds(forAttempt attempt: Int) -> Double {
        let cap = maxBackoff.seconds
        // pow overflows to infinity for huge attempt numbers; such delays are simply the cap.
        let growth = pow(multiplier, Double(max(attempt, 1) - 1))
        return growth.isFinite ? min(initialBackoff.seconds * growth, cap) : cap
    }

    /// The floor of a retry because another replica holds the record's idempotency lock: the
    /// holder is usually about to finish, so the record comes back soon, never in a tight loop.
    public static let lockedElsewhereFloor: Duration = .seconds(1)

    /// Whether a message that has failed `attempts` times may be tried again.
    public func allowsRetry(afterAttempts attempts: Int) -> Bool { attempts < maxAttempts }

    private enum CodingKeys: String, CodingKey {
        case initialBackoff, maxBackoff, multiplier, jitter, maxAttempts, maxWait
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = RetryPolicy()
        self.init(
            initialBackoff: try container.decodeIfPresent(PipelineDuration.self, forKey: .initialBackoff)?.duration
                ?? defaults.initialBackoff,
            maxBackoff: try container.decodeIfPresent(PipelineDuration.self, forKey: .maxBackoff)?.duration
                ?? defaults.maxBackoff,
            multiplier: try container.decodeIfPresent(Double.self, forKey: .multiplier) ?? defaults.multiplier,
            jitter: try container.decodeIfPresent(Double.self, forKey: .jitter) ?? defaults.jitter,
            maxAttempts: try container.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? defaults.maxAttempts,
            maxWait: try container.decodeIfPresent(PipelineDuration.self, forKey: .maxWait)?.duration
                ?? defaults.maxWait
        )
    }

    /// Refuses settings that would retry instantly, shrink delays or never retry.
    func validate(stage: String) throws(PipelineFileError) {
        func invalid(_ why: String) -> PipelineFileError {
            PipelineFileError(code: .invalidValue, message: "stage '\(stage)' retry: \(why)")
        }
        guard initialBackoff > .zero else { throw invalid("initialBackoff must be positive") }
        guard maxBackoff >= initialBackoff else { throw invalid("maxBackoff must be at least initialBackoff") }
        guard multiplier >= 1, multiplier.isFinite else { throw invalid("multiplier must be at least 1") }
        guard (0...1).contains(jitter) else { throw invalid("jitter must be a fraction in 0...1") }
        guard maxAttempts >= 1 else { throw invalid("maxAttempts must be at least 1") }
        guard maxWait > .zero else { throw invalid("maxWait must be positive") }
    }
}
