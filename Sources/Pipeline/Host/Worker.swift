public import Kafka
public import Logging
public import Prometheus
public import Redis
public import ServiceLifecycle
public import UnixSignals

/// One stage as a whole process: its rules plugged into the runtime, plus everything SREs need
/// around it. Executables build one and call ``run(signals:)``.
///
/// Services start in dependency order and stop in reverse: the ops server (first up, last
/// down, so `/metrics` covers the drain), the retry promoter, the lag reporter, the readiness
/// probe, and the runtime (first to stop on SIGTERM: drain, commit, leave the group).
public struct Worker<Handler: MessageHandler>: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let services: [any Service]
    private let producer: KafkaProducer
    private let redis: RedisClient
    private let settings: WorkerSettings
    private let logger: Logger

    /// - Parameter onOpsListening: called with the bound ops port (useful with port 0).
    public init(
        stage: StageSpec, handler: Handler, settings: WorkerSettings, logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        try self.init(stage: stage, settings: settings, logger: logger, registry: registry, onOpsListening: onOpsListening) { _ in handler }
    }

    /// A worker whose handler needs the worker's own connections (a stage keeping its state in
    /// the same Redis as the runtime's retries and idempotency markers).
    public init(
        stage: StageSpec, settings: WorkerSettings, logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in },
        makeHandler: (WorkerResources) throws -> Handler
    ) throws {
        var logger = logger
        logger[metadataKey: "stage"] = "\(stage.name)"
        let factory = PrometheusMetricsFactory(registry: registry)
        let redis = RedisClient(configuration: try RedisConfiguration(url: settings.redisURL, poolSize: settings.redisPoolSize), logger: logger)
        let handler = try makeHandler(WorkerResources(redis: redis, metricsFactory: factory, logger: logger))

        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: settings.kafkaBrokers)
        producerConfiguration.clientId = settings.identity.clientId
        producerConfiguration.additionalProperties = KafkaProducerConfiguration.producerProperties(settings.kafkaProperties)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)

        var consumerConfiguration = KafkaConsumerConfiguration(bootstrapServers: settings.kafkaBrokers, groupId: stage.consumerGroup, topics: stage.inputs)
        consumerConfiguration.clientId = settings.identity.clientId
        consumerConfiguration.groupInstanceId = settings.identity.groupInstanceId
        consumerConfiguration.additionalProperties = settings.kafkaProperties
        let consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger)
        let admin = try KafkaAdmin(bootstrapServers: settings.kafkaBrokers, clientId: settings.identity.clientId + "-admin", logger: logger)

        var configuration = WorkerConfiguration(
            stage: stage.name, consumerGroup: stage.consumerGroup, inputTopics: stage.inputs, rejectTopic: stage.rejectTopic ?? "iap.rejected"
        )
        configuration.maxInFlight = stage.maxInFlight
        configuration.retryPolicy = stage.retry
        let retries = RedisRetryStore(client: redis, stage: stage.name)
        let readiness = ReadinessFlag()

        services = [
            OpsServer(host: settings.opsHost, port: settings.opsPort, registry: registry, readiness: readiness.check, logger: logger, onListening: onOpsListening),
            RetryPromoter(stage: stage.name, store: retries, producer: producer, logger: logger, metricsFactory: factory),
            ConsumerLagReporter(admin: admin, consumer: consumer, group: stage.consumerGroup, interval: settings.lagInterval, logger: logger, metricsFactory: factory),
            DependencyProbe(admin: admin, redis: redis, inputs: stage.inputs, readiness: readiness),
            WorkerRuntime(
                configuration: configuration, handler: handler, consumer: consumer, producer: producer, retries: retries,
                idempotency: RedisIdempotencyGuard(client: redis, stage: stage.name), logger: logger, metricsFactory: factory
            ),
        ]
        self.registry = registry
        self.producer = producer
        self.redis = redis
        self.settings = settings
        self.logger = logger
    }

    /// Runs until a signal in `signals` (or the group's own shutdown), then drains and exits.
    public func run(signals: [UnixSignal] = [.sigterm, .sigint]) async throws {
        try await run(group: makeGroup(signals: signals))
    }

    /// Runs with a caller-owned group trigger (tests and embedded stacks stop it themselves).
    public func run(until shutdown: @escaping @Sendable () async -> Void) async throws {
        let group = makeGroup(signals: [])
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await self.run(group: group) }
            tasks.addTask {
                await shutdown()
                await group.triggerGracefulShutdown()
            }
            try await tasks.waitForAll()
        }
    }

    private func makeGroup(signals: [UnixSignal]) -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: signals,
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = settings.shutdownGracePeriod
        return ServiceGroup(configuration: configuration)
    }

    private func run(group: ServiceGroup) async throws {
        logger.info("worker starting", metadata: ["client_id": "\(settings.identity.clientId)", "kafka": "\(settings.kafkaBrokers)"])
        defer { logger.info("worker stopped") }
        var failure: (any Error)?
        do {
            try await group.run()
        } catch {
            failure = error
        }
        // The runtime has stopped either way: flush outputs and close Redis before returning.
        await producer.close()
        await redis.shutdown()
        if let failure { throw failure }
    }
}

/// What a stage's handler may share with the worker that runs it.
public struct WorkerResources: Sendable {
    /// The worker's Redis client (shut down by the worker after the runtime stopped).
    public let redis: RedisClient
    public let metricsFactory: PrometheusMetricsFactory
    /// Carries the worker's `stage` metadata.
    public let logger: Logger
}
