import AppStore
import Foundation
import Hosting
public import Kafka
public import Logging
import Pipeline
public import Prometheus
import Purchases
public import Redis
import Topology
import WorkerCommon

/// A ``Reconciler`` built from ``ReconcileSettings``, with the connections it owns: what
/// `iap-reconcile` runs every interval and `iap reconcile` runs once.
public struct ReconcileAssembly: Sendable {
    public let reconciler: Reconciler
    public let metrics: ReconcileMetrics
    public let redis: RedisClient
    public let producer: KafkaProducer
    public let topics: Reconciler.Topics
    public let settings: ReconcileSettings

    public init(
        settings: ReconcileSettings, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger
    ) throws {
        let worker = settings.worker
        let pipeline = try PipelineFile.load(path: worker.pipelinePath)
        let topics = Reconciler.Topics(
            notifications: try pipeline.topic(.notifications), purchases: try pipeline.topic(.purchases))

        let redis = RedisClient(
            configuration: try RedisConfiguration(
                url: worker.redisURL, poolSize: worker.redisPoolSize, connectTimeout: worker.redisConnectTimeout,
                commandTimeout: worker.redisCommandTimeout, tls: worker.redisTLS, reconnect: worker.redisReconnect),
            logger: logger)
        let producer = try KafkaProducer(
            configuration: worker.kafka.producer(clientId: worker.identity.clientId), logger: logger)

        let factory = PrometheusMetricsFactory(registry: registry)
        let appleMetrics = AppleCallMetrics(factory: factory)
        let executor = MeteredAppleHTTPExecutor(
            AsyncHTTPClientExecutor(client: AppleHTTPClient.shared), metrics: appleMetrics)
        var clients: [(scope: ReconcileScope, client: AppStoreServerAPIClient)] = []
        var gates: [String: any AppleCallGate] = [:]
        for bundleId in settings.bundleIds {
            guard let app = settings.apple.app(bundleId) else {
                preconditionFailure("ReconcileSettings checks its apps")
            }
            let api = try settings.apple.serverAPIConfiguration(for: app)
            gates[bundleId] = MeteredAppleCallGate(
                base: RedisAppleCallGate(
                    client: redis, callsPerSecond: Double(settings.apple.appleRateLimit), app: app.gateScope),
                metrics: appleMetrics)
            for environment in settings.environments {
                clients.append(
                    (
                        ReconcileScope(bundleId: bundleId, environment: environment),
                        try AppStoreServerAPIClient(configuration: api.pinned(to: environment), executor: executor)
                    ))
            }
        }
        self.reconciler = Reconciler(
            clients: clients,
            apple: ReconcileApple { [gates] bundleId in
                guard let gate = gates[bundleId] else { preconditionFailure("every scope's app has its gate") }
                return gate
            }, state: RedisReconcileState(client: redis),
            index: RedisSubscriptionExpiryIndex(client: redis),
            entitlements: RedisEntitlementStateStore(client: redis), publisher: producer, topics: topics,
            options: settings.options, logger: logger)
        self.metrics = ReconcileMetrics(factory: factory, scopes: clients.map(\.scope))
        self.redis = redis
        self.producer = producer
        self.topics = topics
        self.settings = settings
    }

    /// One run, counted in ``metrics``; the checkpoint ages are set after it either way.
    public func runOnce(progress: @escaping @Sendable (ReconcileProgress) -> Void = { _ in }) async throws
        -> ReconcileReport
    {
        let scopes = reconciler.scopes
        let metrics = metrics
        do {
            let report = try await reconciler.run { event in
                metrics.record(event, scopes: scopes)
                progress(event)
            }
            metrics.countRun(failed: false)
            await recordCheckpointAges()
            return report
        } catch {
            metrics.countRun(failed: true)
            await recordCheckpointAges()
            throw error
        }
    }

    private func recordCheckpointAges() async {
        for scope in reconciler.scopes {
            if let age = try? await reconciler.checkpointAge(scope) { metrics.setCheckpointAge(age, of: scope) }
        }
    }

    /// Flushes what was published and closes Redis.
    public func close() async {
        await producer.close()
        await redis.shutdown()
    }
}
