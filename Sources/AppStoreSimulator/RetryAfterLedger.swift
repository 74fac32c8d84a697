/// Per resource, the `Retry-After` instant the simulator last told a client to wait for, so a
/// call that comes back sooner can be counted (`callsBeforeRetryAfter` of `GET /sim/v1/stats`).
///
/// A resource is a request path without its query, environment prefix included
/// (`/sandbox/inApps/v1/transactions/2000000000000001`): Apple limits per endpoint and
/// environment, and a page parameter doesn't make a retry a different call.
///
/// Memory stays bounded by the resources still inside their wait: an entry whose instant has
/// passed is dropped when it is next looked up, and all of them when the ledger has doubled
/// since its last sweep, so a soak run over many transactions doesn't accumulate them.
struct RetryAfterLedger: Sendable {
    /// Size below which the ledger is not swept; sweeping a handful of entries buys nothing.
    private static let minimumSweepSize = 64

    /// UNIX milliseconds, as `Retry-After` carries them.
    private var instants: [String: Int64] = [:]
    private var sweepSize = minimumSweepSize

    /// Entries held, expired ones included until they are swept.
    var count: Int { instants.count }

    /// Whether a call for `resource` at `now` comes before the instant it was told to wait for.
    /// Arriving at the instant itself is on time.
    mutating func isEarly(_ resource: String, at now: Int64) -> Bool {
        guard let instant = instants[resource] else { return false }
        if now < instant { return true }
        instants[resource] = nil
        return false
    }

    /// Remembers that `resource` was told to wait until `instant`. Keeps the later instant if
    /// concurrent answers for the same resource are recorded out of order.
    mutating func record(_ resource: String, until instant: Int64, now: Int64) {
        instants[resource] = max(instant, instants[resource] ?? instant)
        guard instants.count >= sweepSize else { return }
        instants = instants.filter { $0.value > now }
        sweepSize = max(Self.minimumSweepSize, 2 * instants.count)
    }
}
