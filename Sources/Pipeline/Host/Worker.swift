public import Hosting
import Kafka
public import Logging
public import Prometheus
public import Redis
import ServiceLifecycle
public import Topology

/// One stage as a whole process: its rules plugged into the runtime, plus everything SREs need
/// around it. Executables build one and call ``run(signals:)``.
///
/// Before it joins its consumer group, the worker makes sure Redis holds the stage's state
/// (``StateRecovery``): when the stage's generation marker is missing, it rebuilds what it can
/// from Kafka first (the deliveries it owes from its journal, plus the stage's own steps). Only
/// then is the consumer created, so no record is fetched and buffered meanwhile.
///
/// The ops server is up first and down last (so `/healthz` answers during a rebuild and
/// `/metrics` covers the drain). The stage's services start after recovery, in dependency
/// order, and stop in reverse: the retry promoter, the lag reporter, the readiness probe, the
/// generation watch, and the runtime (first to stop on SIGTERM: drain, commit, leave the group).
public struct Worker<Handler: MessageHandler>: HostedProcess {
    public let registry: PrometheusCollectorRegistry
    private let stage: StageSpec
    private let handler: Handler
    private let producer: KafkaProducer
    private let redis: RedisClient
    private let retries: JournaledRetryStore
    private let recovery: StateRecovery
    private let fence: GenerationFence
    private let settings: WorkerSettings
    private let idempotencyRetention: Duration
    private let retriesInPlace: Set<String>
    private let keyspace: Keyspace
    private let logger: Logger
    private let onOpsListening: @Sendable (Int) async -> Void

    /// - Parameter onOpsListening: called with the bound ops port (useful with port 0).
    public init(
        stage: StageSpec, handler: Handler, settings: WorkerSettings, logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        try self.init(
            stage: stage, settings: settings, logger: logger, registry: registry, onOpsListening: onOpsListening
        ) { _ in handler }
    }

    /// A worker whose handler needs the worker's own connections (a stage keeping its state in
    /// the same Redis as the runtime's retries and idempotency markers).
    ///
    /// - Parameter recoverySteps: what the stage rebuilds from Kafka when Redis lost its state,
    ///   run in order before the deliveries the stage owes are restored.
    /// - Parameter idempotencyRetention: how long "done" markers are kept; longer than any
    ///   redelivery of the stage's records can come (derived from the pipeline file by the stage).
    /// - Parameter retriesInPlace: the input topics whose failed records the stage tries again
    ///   where they are instead of re-publishing them (``WorkerConfiguration/retriesInPlace``,
    ///   D68, D69).
    /// - Parameter keyspace: the names of every Redis key the worker and its handler use
    ///   (``WorkerResources/keyspace``): the runtime's idempotency markers, delay queue and
    ///   generation marker, and the stage's state.
    public init(
        stage: StageSpec, settings: WorkerSettings, logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in },
        idempotencyRetention: Duration = WorkerConfiguration.defaultIdempotencyRetention,
        retriesInPlace: Set<String> = [],
        keyspace: Keyspace = .standard,
        recoverySteps: (WorkerResources) -> [StateRecovery.Step] = { _ in [] },
        makeHandler: (WorkerResources) throws -> Handler
    ) throws {
        var logger = logger
        logger[metadataKey: "stage"] = "\(stage.name)"
        let factory = PrometheusMetricsFactory(registry: registry)
        let redisConfiguration = try RedisConfiguration(
            url: settings.redisURL, poolSize: settings.redisPoolSize, connectTimeout: settings.redisConnectTimeout,
            commandTimeout: settings.redisCommandTimeout, tls: settings.redisTLS, reconnect: settings.redisReconnect
        )
        let redis = RedisClient(configuration: redisConfiguration, logger: logger)
        let fence = GenerationFence(generation: StateGeneration(client: redis, stage: stage.name, keyspace: keyspace))
        let resources = WorkerResources(
            redis: redis, keyspace: keyspace, metricsFactory: factory, logger: logger, fence: fence)
        let handler = try makeHandler(resources)

        let producer = try KafkaProducer(
            configuration: settings.kafka.producer(clientId: settings.identity.clientId), logger: logger)

        let journal = DeliveryJournal(topic: stage.journalTopic, producer: producer)
        let retries = JournaledRetryStore(
            journal: journal, index: RedisRetryStore(client: redis, stage: stage.name, keyspace: keyspace))
        let restoreDeliveries = StateRecovery.Step("deliveries owed from \(journal.topic)") { [settings, logger] in
            let contents = try await DeliveryJournal.read(
                topic: journal.topic, cluster: settings.kafka, logger: logger
            )
            try await retries.restore(contents)
            return
                "\(contents.owed.count) owed (\(contents.owed.count { $0.kind == .wait }) waits) of \(contents.records) records"
        }

        self.registry = registry
        self.stage = stage
        self.handler = handler
        self.producer = producer
        self.redis = redis
        self.retries = retries
        self.recovery = StateRecovery(
            generation: fence.generation, steps: recoverySteps(resources) + [restoreDeliveries])
        self.fence = fence
        self.settings = settings
        self.idempotencyRetention = idempotencyRetention
        self.retriesInPlace = retriesInPlace
        self.keyspace = keyspace
        self.logger = logger
        self.onOpsListening = onOpsListening
    }

    public func run(until stop: ProcessHost.Stop) async throws {
        logger.info(
            "worker starting",
            metadata: ["client_id": "\(settings.identity.clientId)", "kafka": "\(settings.kafka.bootstrapServers)"])
        defer { logger.info("worker stopped") }
        let readiness = ReadinessFlag(.notReady(reason: "rebuilding state from Kafka if Redis lost it"))
        let stageServices = StageServices(
            recovery: recovery, shutdownGracePeriod: settings.shutdownGracePeriod, logger: logger
        ) { generation in
            try makeStageServices(generation: generation, readiness: readiness)
        }
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: OpsServer(
                    host: settings.opsHost, port: settings.opsPort, registry: registry, readiness: readiness.check,
                    logger: logger,
                    process: "iap-\(stage.name)",
                    onListening: onOpsListening
                )),
            // Its end (a lost state, a failure) stops the process; the ops server goes last.
            .init(
                service: stageServices, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        // The runtime has stopped either way: flush outputs and close Redis before returning.
        try await ProcessHost.run(services, until: stop, gracePeriod: settings.shutdownGracePeriod, logger: logger) {
            [producer, redis] in
            await producer.close()
            await redis.shutdown()
        }
    }

    /// The services that need the stage's state: created once it was recovered, so the
    /// consumer joins its group only then.
    private func makeStageServices(generation: String, readiness: ReadinessFlag) throws -> [ServiceGroupConfiguration
        .ServiceConfiguration]
    {
        fence.arm(generation)
        let factory = PrometheusMetricsFactory(registry: registry)
        var consumerConfiguration = settings.kafka.consumer(
            groupId: stage.consumerGroup, topics: stage.consumedTopics, clientId: settings.identity.clientId)
        consumerConfiguration.groupInstanceId = settings.identity.groupInstanceId
        let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger)
        let admin = try settings.kafka.admin(clientId: settings.identity.clientId + "-admin", logger: logger)

        var configuration = WorkerConfiguration(
            stage: stage.name, consumerGroup: stage.consumerGroup, inputTopics: stage.inputs,
            rejectTopic: stage.rejects
        )
        configuration.auditTopic = stage.auditTopic
        configuration.retryTopic = stage.retryTopic
        configuration.maxInFlight = stage.maxInFlight
        configuration.retryPolicy = stage.retry
        configuration.idempotencyRetention = idempotencyRetention
        configuration.retriesInPlace = retriesInPlace
        return [
            .init(
                service: RetryPromoter(
                    stage: stage.name, store: retries, producer: producer, logger: logger, metricsFactory: factory)),
            .init(
                service: ConsumerLagReporter(
                    admin: admin, consumer: consumer, stage: stage.name, group: stage.consumerGroup,
                    interval: settings.lagInterval,
                    logger: logger, metricsFactory: factory
                )),
            .init(
                service: DependencyProbe(
                    admin: admin, redis: redis, inputs: stage.consumedTopics + [stage.journalTopic],
                    readiness: readiness,
                    interval: settings.readinessInterval)),
            // A lost state fails the group gracefully: the runtime drains and commits first.
            .init(
                service: GenerationWatch(fence: fence, interval: settings.generationCheckInterval, logger: logger),
                failureTerminationBehavior: .gracefullyShutdownGroup
            ),
            .init(
                service: WorkerRuntime(
                    configuration: configuration, handler: handler, consumer: consumer, producer: producer,
                    retries: retries,
                    idempotency: RedisIdempotencyGuard(client: redis, stage: stage.name, keyspace: keyspace),
                    logger: logger,
                    metricsFactory: factory
                )),
        ]
    }
}

/// What a stage's handler may share with the worker that runs it.
public struct WorkerResources: Sendable {
    /// The worker's Redis client (shut down by the worker after the runtime stopped).
    public let redis: RedisClient
    /// The names of the worker's Redis keys, the runtime's and the stage's state alike.
    public let keyspace: Keyspace
    public let metricsFactory: PrometheusMetricsFactory
    /// Carries the worker's `stage` metadata.
    public let logger: Logger
    /// For state stores whose missing values would read as first sightings: armed with the
    /// marker the worker recovered under before the consumer starts (``GenerationFence``).
    public let fence: GenerationFence
}
