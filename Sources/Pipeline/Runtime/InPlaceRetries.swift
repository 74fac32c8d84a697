import Basics
import CoreMetrics
import Synchronization

/// The records a stage is trying again where they are (D68, D69), each from its first failure.
///
/// A record retrying in place holds its partition's committed position, so the partition's lag
/// rises while the stage is busy elsewhere; what tells an operator why is the count of such
/// records and the oldest one's age (`iap_stage_retrying_in_place{stage}`,
/// `iap_stage_retrying_in_place_oldest_seconds{stage}`, the alert `IAPRecordRetryingInPlace`).
/// They describe this replica: a partition's held record lives in one replica.
final class InPlaceRetries: Sendable {
    private struct Held {
        var next = 0
        var since: [Int: ContinuousClock.Instant] = [:]
        var reported: ContinuousClock.Instant?
    }

    /// How often the oldest age is re-reported while records wait: every waiting record asks,
    /// and a Redis outage can hold every running slot.
    static let reportInterval = Duration.seconds(1)

    private let held = Mutex(Held())
    private let count: Gauge
    private let oldest: Gauge

    init(stage: String, factory: any MetricsFactory) {
        count = Gauge(label: "iap_stage_retrying_in_place", dimensions: [("stage", stage)], factory: factory)
        oldest = Gauge(
            label: "iap_stage_retrying_in_place_oldest_seconds", dimensions: [("stage", stage)], factory: factory)
        count.record(0)
        oldest.record(0)
    }

    /// Counts a record that first failed at `since`; its ticket ends it.
    func begin(since: ContinuousClock.Instant) -> Int {
        let ticket = held.withLock { held in
            held.next += 1
            held.since[held.next] = since
            return held.next
        }
        report(force: true)
        return ticket
    }

    /// The record is done retrying in place: it succeeded, was dead-lettered or given back.
    func end(_ ticket: Int) {
        held.withLock { _ = $0.since.removeValue(forKey: ticket) }
        report(force: true)
    }

    /// Re-reports the gauges, at most once per ``reportInterval`` unless `force`d: the oldest
    /// record's age grows while it waits.
    func report(force: Bool = false) {
        // Read and recorded under the lock, so a report never lands after a newer one.
        held.withLock { held in
            let now = ContinuousClock.now
            if !force, let last = held.reported, now - last < Self.reportInterval { return }
            held.reported = now
            let age = held.since.values.min().map { now - $0 } ?? .zero
            count.record(held.since.count)
            oldest.record(age.seconds)
        }
    }
}
