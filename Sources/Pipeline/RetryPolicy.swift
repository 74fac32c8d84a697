// Temporary stand-in with the same API as the pipeline-file branch's RetryPolicy (merged later).
public struct RetryPolicy: Sendable, Hashable {
    public var initialBackoff: Duration
    public var maxBackoff: Duration
    public var multiplier: Double
    public var jitter: Double
    public var maxAttempts: Int
    public init(initialBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(300), multiplier: Double = 2, jitter: Double = 0.2, maxAttempts: Int = 10) {
        self.initialBackoff = initialBackoff; self.maxBackoff = maxBackoff; self.multiplier = multiplier; self.jitter = jitter; self.maxAttempts = maxAttempts
    }
    public func delay(forAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration {
        var d = initialBackoff
        for _ in 1..<max(attempt, 1) { d = min(d * multiplier, maxBackoff) }
        return max(d, retryAfter ?? .zero)
    }
    public func allowsRetry(afterAttempts attempts: Int) -> Bool { attempts < maxAttempts }
}
