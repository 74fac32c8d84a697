public import Hosting
import Kafka
public import Logging
public import Prometheus
import ServiceLifecycle

/// `iap lag --serve` as a process: the ops server (`/metrics` with the exporter's series,
/// `/healthz`, `/readyz` = the last Kafka queries succeeded) and the ``ConsumerLagExporter``,
/// in one service group. One replica per cluster: it reads the cluster, it owns no partition.
public struct LagExporterProcess: HostedProcess {
    public let registry: PrometheusCollectorRegistry
    private let settings: LagExporterSettings
    private let targets: [LagTarget]
    private let logger: Logger
    private let onOpsListening: @Sendable (Int) async -> Void

    /// - Parameter onOpsListening: called with the bound ops port (useful with port 0).
    public init(
        settings: LagExporterSettings, targets: [LagTarget], logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.settings = settings
        self.targets = targets
        self.logger = logger
        self.registry = registry
        self.onOpsListening = onOpsListening
    }

    public func run(until stop: ProcessHost.Stop) async throws {
        let admin = try settings.kafka.admin(clientId: settings.clientId, logger: logger)
        let readiness = ReadinessFlag(.notReady(reason: "first lag query pending"))
        logger.info(
            "lag exporter starting",
            metadata: ["groups": "\(targets.map(\.group))", "kafka": "\(settings.kafka.bootstrapServers)"])
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: OpsServer(
                    host: settings.opsHost, port: settings.opsPort, registry: registry, readiness: readiness.check,
                    logger: logger, process: "iap-lag-exporter", onListening: onOpsListening)),
            .init(
                service: ConsumerLagExporter(
                    admin: admin, targets: targets, interval: settings.interval, queryTimeout: settings.queryTimeout,
                    registry: registry, readiness: readiness, logger: logger),
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        try await ProcessHost.run(services, until: stop, gracePeriod: settings.shutdownGracePeriod, logger: logger)
    }
}
