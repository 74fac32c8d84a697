public import Hosting
import Kafka
public import Logging
public import Prometheus
import ServiceLifecycle

/// The `iap-gateway` process: App Store Server Notifications V2 in, `iap.notification.v1`
/// records out. Executables build one from ``GatewaySettings`` and call ``run(signals:)``.
///
/// One service group, started in order and stopped in reverse:
/// 1. the ops server (`/metrics`, `/healthz`, `/readyz` on ``GatewaySettings/opsPort``; first
///    up, last down, so `/metrics` covers the drain),
/// 2. the readiness probe (brokers reachable, topic known),
/// 3. the notification listener (first to stop on SIGTERM: `/readyz` turns 503, no new
///    connections, running requests finish their Kafka writes).
/// After the group the producer is flushed and closed.
public struct Gateway: HostedProcess {
    public let registry: PrometheusCollectorRegistry
    /// Where notifications are written.
    public let topic: String
    private let services: [any Service]
    private let producer: KafkaProducer
    private let settings: GatewaySettings
    private let logger: Logger

    /// - Parameters:
    ///   - topic: overrides ``GatewaySettings/notificationsTopic()`` (which may read the pipeline file).
    ///   - onListening: called with the bound notification port (useful with port 0).
    ///   - onOpsListening: called with the bound ops port.
    public init(
        settings: GatewaySettings, topic: String? = nil, logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        try settings.validate()
        let topic = try topic ?? settings.notificationsTopic()
        var logger = logger
        logger[metadataKey: "component"] = "gateway"

        var producerConfiguration = settings.kafka.producer(clientId: settings.clientId)
        // Give up in librdkafka when the request gives up: a record Apple was told to retry
        // should not linger in the local queue for the default five minutes.
        producerConfiguration.messageTimeout = settings.writeTimeout
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        let admin = try settings.kafka.admin(clientId: settings.clientId + "-admin", logger: logger)

        let readiness = ReadinessFlag()
        let probe = KafkaTopicProbe(admin: admin, topic: topic, readiness: readiness)
        let metrics = GatewayMetrics(factory: PrometheusMetricsFactory(registry: registry))
        services = [
            OpsServer(
                host: settings.opsHost, port: settings.opsPort, registry: registry, readiness: readiness.check,
                logger: logger, process: "iap-gateway", onListening: onOpsListening),
            probe,
            NotificationServer(
                settings: settings, topic: topic,
                writer: NotificationWriter(producer: producer, timeout: settings.writeTimeout),
                metrics: metrics, readiness: readiness, onFatal: { probe.markFatal($0) }, logger: logger,
                onListening: onListening
            ),
        ]
        self.registry = registry
        self.topic = topic
        self.producer = producer
        self.settings = settings
        self.logger = logger
    }

    public func run(until stop: ProcessHost.Stop) async throws {
        logger.info(
            "gateway starting",
            metadata: [
                "topic": "\(topic)", "kafka": "\(settings.kafka.bootstrapServers)", "client_id": "\(settings.clientId)",
                "tls": "\(settings.tlsCertificatePath != nil)",
            ]
        )
        defer { logger.info("gateway stopped") }
        // Every request has been answered by the time the group ends; deliver whatever is still queued.
        try await ProcessHost.run(
            services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }, until: stop,
            gracePeriod: settings.shutdownGracePeriod,
            logger: logger
        ) { [producer, settings] in
            await producer.close(timeout: settings.writeTimeout)
        }
    }
}
