import Synchronization

/// `GET /sim/v1/stats`: what clients asked of the Apple surfaces and how the simulator answered.
///
/// The soak test reads `callsBeforeRetryAfter` to learn whether the pipeline ever called Apple
/// again before a 429's `Retry-After`; the other counts put that number in context. Key names
/// are a contract of the control API: keep them stable.
struct StatsResponse: Encodable, Sendable {
    var serverAPIRequests = 0
    var verifyReceiptRequests = 0
    /// Faults injected, by kind raw value (`"429"`, `"5000001"`, `"timeout"`, …); kinds never
    /// injected are absent rather than listed as 0, since 21100–21199 alone are a hundred kinds.
    var faults: [String: Int] = [:]
    /// Server API calls for a resource that arrived before the `Retry-After` instant the
    /// simulator last gave for it (see `RetryAfterLedger`).
    var callsBeforeRetryAfter = 0
}

/// Counters shared by the Apple surfaces' middleware (which records) and the control API (which
/// reads and resets), behind a lock like `FaultState`: every request touches them briefly.
final class TrafficStats: Sendable {
    private struct State {
        var counts = StatsResponse()
        var retryAfter = RetryAfterLedger()
    }

    private let state = Mutex(State())

    /// Counts a request to `surface` that arrived at `now` (UNIX ms), and whether it came
    /// before the `Retry-After` its resource was given.
    func arrived(on surface: FaultSurface, resource: String, at now: Int64) {
        state.withLock { state in
            switch surface {
            case .serverAPI: state.counts.serverAPIRequests += 1
            case .verifyReceipt: state.counts.verifyReceiptRequests += 1
            }
            if state.retryAfter.isEarly(resource, at: now) { state.counts.callsBeforeRetryAfter += 1 }
        }
    }

    func injected(_ kind: FaultKind) {
        state.withLock { $0.counts.faults[kind.rawValue, default: 0] += 1 }
    }

    /// Remembers that `resource` was answered 429 with `Retry-After: instant` (UNIX ms).
    func toldToWait(_ resource: String, until instant: Int64, now: Int64) {
        state.withLock { $0.retryAfter.record(resource, until: instant, now: now) }
    }

    var current: StatsResponse { state.withLock { $0.counts } }

    /// Returns the counts and starts them again from zero in one step, so a caller reading a
    /// phase's numbers loses no request that lands between a read and a reset. Pending
    /// `Retry-After` instants are kept: a client told to wait is still bound by it.
    func reset() -> StatsResponse {
        state.withLock { state in
            defer { state.counts = StatsResponse() }
            return state.counts
        }
    }
}
