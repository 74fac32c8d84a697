/// What the soak did and when (kills, Redis and broker faults), so the report can say what
/// came between a record and its repeated copy. The repeats move with where the faults fall
/// among the records in flight more than with the build (D69): a count alone cannot compare
/// two builds.
///
/// A copy is written after its cause, often long after: a worker killed just after it
/// produced a record and before it marked the record done leaves it to its successor, which
/// waits out the dead one's lock (`lockTTL`, 30 s) and writes the record again. So the cause is
/// what the soak did first after the copy before, not what it did last before the copy.
struct SoakTimeline: Sendable {
    private var events: [(milliseconds: Int64, what: String)] = []

    /// Notes `what` at `milliseconds` (UNIX ms, the clock Kafka stamps records with). The
    /// killer and the faults note from tasks of their own, so notes may come out of order.
    mutating func note(_ what: String, at milliseconds: Int64) {
        let index = events.lastIndex { $0.milliseconds <= milliseconds }.map { $0 + 1 } ?? 0
        events.insert((milliseconds, what), at: index)
    }

    /// The first event after `previous` (the copy before this one: the first, for a record
    /// written twice) and at or before `copy`, how long after `previous` it came, and how long
    /// before the copy.
    func between(_ previous: Int64, and copy: Int64) -> (what: String, after: Duration, before: Duration)? {
        guard let event = events.first(where: { $0.milliseconds > previous && $0.milliseconds <= copy }) else {
            return nil
        }
        return (event.what, .milliseconds(event.milliseconds - previous), .milliseconds(copy - event.milliseconds))
    }
}
