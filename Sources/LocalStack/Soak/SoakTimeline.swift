/// What the soak did and when (kills, Redis and broker faults), so the report can say what came
/// last before each repeated delivery. The repeats move with where the faults fall among the
/// records in flight more than with the build (D69): a count alone cannot compare two builds.
struct SoakTimeline: Sendable {
    private var events: [(milliseconds: Int64, what: String)] = []

    /// Notes `what` at `milliseconds` (UNIX ms, the clock Kafka stamps records with). The
    /// killer and the faults note from tasks of their own, so notes may come out of order.
    mutating func note(_ what: String, at milliseconds: Int64) {
        let index = events.lastIndex { $0.milliseconds <= milliseconds }.map { $0 + 1 } ?? 0
        events.insert((milliseconds, what), at: index)
    }

    /// The last event at or before `milliseconds`, and how long before it that was.
    func last(before milliseconds: Int64) -> (what: String, ago: Duration)? {
        guard let event = events.last(where: { $0.milliseconds <= milliseconds }) else { return nil }
        return (event.what, .milliseconds(milliseconds - event.milliseconds))
    }
}
