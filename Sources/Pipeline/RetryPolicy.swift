// Temporary stand-in with the same API as the pipeline-file branch's RetryPolicy (merged later).
public struct RetryPolicy: Sendable, Hashable {
    public var initialBackoff: Duration = .seconds(1)
    public var maxBackoff: Duration = .seconds(300)
    public var multiplier: Double = 2
    public var jitter: Double = 0.2
    public var maxAttempts: Int = 10
    public init() {}
    public func delay(forAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration {
        var d = initialBackoff
        for _ in 1..<max(attempt, 1) { d = min(d * multiplier, maxBackoff) }
        return max(d, retryAfter ?? .zero)
    }
    public func allowsRetry(afterAttempts attempts: Int) -> Bool { attempts < maxAttempts }
}
