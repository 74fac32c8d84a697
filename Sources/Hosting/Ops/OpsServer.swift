import Foundation
import Hummingbird
public import Logging
import NIOCore
public import Prometheus
public import ServiceLifecycle

/// The worker's operations endpoint, run as the first service of the worker's group:
/// - `GET /metrics`: Prometheus text from the process registry, with the process metrics
///   (`process_*`, `iap_build_info`, `iap_ready`) refreshed first and every family's `# HELP`
///   line (``MetricHelp``, decision D28),
/// - `GET /healthz`: 200 while the process runs (liveness),
/// - `GET /readyz`: 200 when `readiness` says so, else 503 with the reason (readiness).
///
/// `process` names the process in `iap_ready{process}` and `iap_build_info{process}` (the
/// alerts' "no ready replica" sums per process): `iap-<stage>` for workers, `iap-gateway`.
///
/// Port 0 binds an ephemeral port, reported through `onListening` (for `iap-dev dev up`, which
/// prints the ops URL of every worker, and for tests).
public struct OpsServer: Service {
    /// Prometheus' text exposition format, version 0.0.4.
    public static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    public var host: String
    public var port: Int
    private let registry: PrometheusCollectorRegistry
    private let processMetrics: ProcessMetrics
    private let readiness: @Sendable () async -> Readiness
    private let onListening: @Sendable (Int) async -> Void
    private let logger: Logger

    public init(
        host: String = "0.0.0.0",
        port: Int,
        registry: PrometheusCollectorRegistry,
        readiness: @escaping @Sendable () async -> Readiness,
        logger: Logger = Logger(label: "iap.ops"),
        process: String = OpsServer.defaultProcessName,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.host = host
        self.port = port
        self.registry = registry
        self.processMetrics = ProcessMetrics(registry: registry, process: process)
        self.readiness = readiness
        self.logger = logger
        self.onListening = onListening
    }

    /// Serves until graceful shutdown of the enclosing service group.
    public func run() async throws {
        try await makeApplication().run()
    }

    /// The Hummingbird application behind ``run()``; tests drive it without a socket.
    func makeApplication() -> some ApplicationProtocol {
        let logger = logger
        let onListening = onListening
        return Application(
            router: makeRouter(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "iap-ops"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                logger.info("ops server listening", metadata: ["port": "\(bound)"])
                await onListening(bound)
            },
            logger: logger
        )
    }

    /// The executable's file name: the `process` label of `iap_ready` and `iap_build_info`
    /// unless the caller names the process.
    public static var defaultProcessName: String { ProcessInfo.processInfo.processName }

    /// The registry's text with every family's help (``MetricHelp/annotate(_:catalog:)``).
    public static func exposition(_ registry: PrometheusCollectorRegistry) -> [UInt8] {
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return MetricHelp.annotate(bytes)
    }

    private func makeRouter() -> Router<BasicRequestContext> {
        let registry = registry
        let readiness = readiness
        let processMetrics = processMetrics
        let router = Router()
        router.get("metrics") { _, _ -> Response in
            processMetrics.update(readiness: await readiness())
            return Response(
                status: .ok,
                headers: [.contentType: Self.metricsContentType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: Self.exposition(registry)))
            )
        }
        router.get("healthz") { _, _ in "ok\n" }
        router.get("readyz") { _, _ -> Response in
            switch await readiness() {
            case .ready:
                return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "ready\n")))
            case .notReady(let reason):
                return Response(
                    status: .serviceUnavailable,
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "not ready: \(reason)\n")))
            }
        }
        return router
    }
}
