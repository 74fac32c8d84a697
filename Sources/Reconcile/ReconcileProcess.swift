public import Hosting
import Kafka
public import Logging
import Pipeline
public import Prometheus
import ServiceLifecycle

/// The `iap-reconcile` process (decision D32): a reconcile run every
/// ``ReconcileSettings/interval`` on the shared host. One service group, started in order and
/// stopped in reverse: the ops server (`/metrics`, `/healthz`, `/readyz`), the readiness probe
/// (Kafka answers for the topics reconcile writes, Redis answers PING), and the loop.
///
/// SIGTERM stops the loop at once, a run in progress included: what it published after its
/// last checkpoint is published again by the next run (no-ops downstream), so nothing waits
/// for Apple during a shutdown.
public struct ReconcileProcess: HostedProcess {
    public let registry: PrometheusCollectorRegistry
    private let assembly: ReconcileAssembly
    private let admin: KafkaAdmin
    private let logger: Logger
    private let onOpsListening: @Sendable (Int) async -> Void

    public init(
        settings: ReconcileSettings, logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        self.assembly = try ReconcileAssembly(settings: settings, registry: registry, logger: logger)
        self.admin = try settings.worker.kafka.admin(
            clientId: settings.worker.identity.clientId + "-admin", logger: logger)
        self.registry = registry
        self.logger = logger
        self.onOpsListening = onOpsListening
    }

    public func run(until stop: ProcessHost.Stop) async throws {
        let settings = assembly.settings
        logger.info(
            "reconcile starting",
            metadata: [
                "scopes": "\(assembly.reconciler.scopes.map(\.name))", "interval": "\(settings.interval)",
                "client_id": "\(settings.worker.identity.clientId)",
            ])
        defer { logger.info("reconcile stopped") }
        let readiness = ReadinessFlag()
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(
                service: OpsServer(
                    host: settings.worker.opsHost, port: settings.worker.opsPort, registry: registry,
                    readiness: readiness.check, logger: logger, process: "iap-reconcile", onListening: onOpsListening)),
            .init(
                service: DependencyProbe(
                    admin: admin, redis: assembly.redis,
                    inputs: [assembly.topics.notifications, assembly.topics.purchases], readiness: readiness)),
            .init(
                service: ReconcileLoop(assembly: assembly, interval: settings.interval, logger: logger),
                failureTerminationBehavior: .gracefullyShutdownGroup),
        ]
        try await ProcessHost.run(
            services, until: stop, gracePeriod: settings.worker.shutdownGracePeriod, logger: logger
        ) { [assembly] in
            await assembly.close()
        }
    }
}

/// Runs reconcile, waits the interval, and again, until graceful shutdown. A failed run is
/// logged and counted; the next one resumes from the checkpoint.
struct ReconcileLoop: Service {
    let assembly: ReconcileAssembly
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let report = try await cancelWhenGracefulShutdown { try await assembly.runOnce() }
                // Quiet when there was nothing to recover: the embedded stack runs every second or two.
                let changed = report.notificationsPublished > 0 || report.subscriptionsPublished > 0
                logger.log(
                    level: changed ? .info : .debug,
                    "reconcile run finished",
                    metadata: [
                        "pages": "\(report.pages)", "notifications": "\(report.notificationsPublished)",
                        "subscriptions_swept": "\(report.subscriptionsSwept)",
                        "subscriptions_published": "\(report.subscriptionsPublished)",
                    ])
            } catch is CancellationError {
                break
            } catch {
                guard !Task.isShuttingDownGracefully else { break }
                logger.error(
                    "reconcile run failed; the next run resumes from the checkpoint", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
