public import CoreMetrics
import Foundation
public import Kafka
public import Logging
import Metrics
public import ServiceLifecycle
import Synchronization

/// Re-publishes due retries and waits with the attempt counter incremented: to the input they
/// came from, or to the stage's retry topic when it has one (D67).
///
/// Items are claimed with a lease and acknowledged only after Kafka acknowledged the
/// re-published record, so a promoter crash between the two only re-publishes again (the
/// idempotency guard absorbs that duplicate), never loses the retry.
///
/// It also reports what the stage's store holds, every few seconds while idle:
/// `iap_retry_queue_depth{stage}`, `iap_waiting_records{stage,waiting_for}` and
/// `iap_waiting_oldest_seconds{stage}`. They describe the stage, not the replica: every replica
/// reports the same store, so dashboards and alerts take the `max` over replicas.
public struct RetryPromoter: Service {
    private let store: any RetryStore
    private let producer: KafkaProducer
    private let logger: Logger
    private let batchSize: Int
    private let lease: Duration
    private let idleInterval: Duration
    private let promoted: Counter
    private let depth: Gauge
    private let waiting: WaitingGauges

    public init(
        stage: String, store: any RetryStore, producer: KafkaProducer, logger: Logger, batchSize: Int = 256,
        lease: Duration = .seconds(30), idleInterval: Duration = .milliseconds(200),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.store = store
        self.producer = producer
        var logger = logger
        logger[metadataKey: "stage"] = "\(stage)"
        self.logger = logger
        self.batchSize = batchSize
        self.lease = lease
        self.idleInterval = idleInterval
        promoted = Counter(label: "iap_retry_promoted_total", dimensions: [("stage", stage)], factory: metricsFactory)
        depth = Gauge(label: "iap_retry_queue_depth", dimensions: [("stage", stage)], factory: metricsFactory)
        waiting = WaitingGauges(stage: stage, factory: metricsFactory)
    }

    public func run() async throws {
        let clock = ContinuousClock()
        var reported: ContinuousClock.Instant?
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let count = try await promoteOnce()
                // On a clock, not per idle round: a backlog that keeps the promoter busy is when
                // the gauges matter most.
                if reported.map({ clock.now - $0 >= Self.reportInterval }) ?? true {
                    reported = clock.now
                    depth.record(try await store.depth())
                    waiting.record(try await store.waiting())
                }
                if count == 0 {
                    // Jitter spreads replicas' polls so they do not hit Redis in lockstep.
                    try? await cancelWhenGracefulShutdown {
                        try await Task.sleep(for: idleInterval * Double.random(in: 0.75...1.25))
                    }
                }
            } catch {
                logger.warning("retry promotion failed", metadata: ["error": "\(error)"])
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            }
        }
    }

    /// How often the store's gauges are read (three Redis commands).
    static let reportInterval: Duration = .seconds(5)

    /// Claims and re-publishes one batch; returns how many items were promoted.
    func promoteOnce() async throws -> Int {
        let claimed = try await store.claimDue(limit: batchSize, lease: lease)
        guard !claimed.isEmpty else { return 0 }
        var records: [KafkaRecord] = []
        var ids: [String] = []
        for item in claimed {
            do {
                records.append(try RetryEnvelope.decode(item.payload).record)
                ids.append(item.id)
            } catch {
                // Unreadable payloads would otherwise come back every lease forever.
                logger.error("dropping unreadable retry item", metadata: ["id": "\(item.id)", "error": "\(error)"])
                try await store.acknowledge([item.id])
            }
        }
        _ = try await producer.send(records)
        try await store.acknowledge(ids)
        promoted.increment(by: ids.count)
        return ids.count
    }
}

/// `iap_waiting_records{stage,waiting_for}` and `iap_waiting_oldest_seconds{stage}`, from the
/// store's ``WaitingSummary``; a label that stops waiting is reported as 0, not left at its last
/// value.
private final class WaitingGauges: Sendable {
    private let stage: String
    private let factory: any MetricsFactory
    private let oldest: Gauge
    private let records = Mutex<[String: Gauge]>([:])

    init(stage: String, factory: any MetricsFactory) {
        self.stage = stage
        self.factory = factory
        oldest = Gauge(label: "iap_waiting_oldest_seconds", dimensions: [("stage", stage)], factory: factory)
    }

    func record(_ summary: WaitingSummary, now: Date = Date()) {
        oldest.record(summary.oldestSince.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        records.withLock { gauges in
            for label in Set(gauges.keys).union(summary.counts.keys) {
                let gauge =
                    gauges[label]
                    ?? Gauge(
                        label: "iap_waiting_records", dimensions: [("stage", stage), ("waiting_for", label)],
                        factory: factory)
                gauges[label] = gauge
                gauge.record(summary.counts[label] ?? 0)
            }
        }
    }
}
