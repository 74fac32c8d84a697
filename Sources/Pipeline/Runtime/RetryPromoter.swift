public import CoreMetrics
public import Kafka
public import Logging
import Metrics
public import ServiceLifecycle

/// Re-publishes due retries to their input topic with the attempt counter incremented.
///
/// Items are claimed with a lease and acknowledged only after Kafka acknowledged the
/// re-published record, so a promoter crash between the two only re-publishes again (the
/// idempotency guard absorbs that duplicate), never loses the retry.
public struct RetryPromoter: Service {
    private let store: any RetryStore
    private let producer: KafkaProducer
    private let logger: Logger
    private let batchSize: Int
    private let lease: Duration
    private let idleInterval: Duration
    private let promoted: Counter
    private let depth: Gauge

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
    }

    public func run() async throws {
        var idleRounds = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let count = try await promoteOnce()
                idleRounds = count == 0 ? idleRounds + 1 : 0
                if idleRounds % 25 == 1 { depth.record(try await store.depth()) }
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
