import Customers
import Foundation
public import Hosting
import Hummingbird
public import Logging
import Pipeline
public import ProductCatalog
public import Prometheus
import Redis
import ServiceLifecycle
import WorkerCommon

/// The `iap-api` process: the read API (issue 21) over the customer state's read copy in Redis.
///
/// One service group, started in order and stopped in reverse: the ops server (`/metrics`,
/// `/healthz`, `/readyz` on the host's ops port; ready once Redis answered), the Redis probe,
/// and the API listener, first to stop on SIGTERM (`/readyz` turns 503, running requests finish).
public struct ReadAPI: HostedProcess {
    public let registry: PrometheusCollectorRegistry
    private let services: [any Service]
    private let redis: RedisClient
    private let settings: ReadAPISettings
    private let logger: Logger

    /// - Parameters:
    ///   - onListening: called with the bound API port (useful with port 0).
    ///   - onOpsListening: called with the bound ops port.
    public init(
        settings: ReadAPISettings, logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onOpsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        var configured = logger
        configured[metadataKey: "component"] = "api"
        let logger = configured
        let keyring = try APIKeyring.load(path: settings.keysFile)
        let offers = try settings.offerKeysFile.map { path throws(OfferKeyringError) in
            try OfferKeyring.load(path: path)
        }
        let catalog = try settings.catalogPath.map { path throws(CatalogError) in try CatalogFile.load(path: path) }
        let redis = RedisClient(configuration: try settings.redis.configuration(), logger: logger)
        let readiness = ReadinessFlag()
        let routes = ReadRoutes(
            keyring: keyring, store: RedisCustomerStore(client: redis), audit: RedisAuditIndex(client: redis),
            catalog: catalog ?? .empty, offers: offers ?? .empty,
            metrics: ReadAPIMetrics(factory: PrometheusMetricsFactory(registry: registry), logger: logger),
            logger: logger, renderCacheEntries: settings.renderCacheEntries)
        let address = BindAddress.hostname(settings.host, port: settings.port)
        services = [
            OpsServer(
                host: settings.process.opsHost, port: settings.process.opsPort, registry: registry,
                readiness: readiness.check, logger: logger, process: "iap-api", onListening: onOpsListening),
            RedisProbe(redis: redis, readiness: readiness, logger: logger),
            APIServer(
                application: Application(
                    router: routes.router(),
                    configuration: ApplicationConfiguration(address: address, serverName: "iap-api"),
                    onServerRunning: { channel in
                        logger.info("read API up", metadata: ["port": "\(channel.localAddress?.port ?? 0)"])
                        await onListening(channel.localAddress?.port ?? 0)
                    },
                    logger: logger),
                readiness: readiness),
        ]
        logger.info(
            "read API configured",
            metadata: [
                "keys": "\(keyring.keys.count)", "catalog": "\(settings.catalogPath ?? "none")",
                "offer_keys": "\((offers ?? .empty).bundleIds.joined(separator: ","))",
            ])
        self.registry = registry
        self.redis = redis
        self.settings = settings
        self.logger = logger
    }

    public func run(until stop: ProcessHost.Stop) async throws {
        try await ProcessHost.run(
            services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }, until: stop,
            gracePeriod: settings.process.shutdownGracePeriod, logger: logger
        ) {}
    }
}

/// The listener; turns `/readyz` to 503 the moment shutdown starts.
private struct APIServer<App: ApplicationProtocol>: Service {
    let application: App
    let readiness: ReadinessFlag

    func run() async throws {
        let readiness = readiness
        try await withGracefulShutdownHandler {
            try await application.run()
        } onGracefulShutdown: {
            readiness.set(.notReady(reason: "shutting down"))
        }
    }
}

/// Ready while Redis answers a `PING`, looked at every two seconds.
private struct RedisProbe: Service {
    let redis: RedisClient
    let readiness: ReadinessFlag
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                _ = try await redis.send("PING")
                readiness.set(.ready)
            } catch {
                readiness.set(.notReady(reason: "Redis does not answer: \(error)"))
            }
            try? await Task.sleep(for: .seconds(2))
        }
    }
}
