/// Thrown when a condition a test waits for does not hold before its deadline.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` until it returns a value or `timeout` passes.
///
/// Integration tests wait on brokers and child processes; this bounds the wait without
/// asserting anything about speed (a slow machine only takes longer, it never fails here
/// unless the behaviour is really missing).
public func eventually<T>(
    _ what: String, timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> T?
) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if let value = try await condition() { return value }
        if clock.now >= deadline { throw TimedOut("timed out after \(timeout) waiting for \(what)") }
        try await Task.sleep(for: interval)
    }
}
