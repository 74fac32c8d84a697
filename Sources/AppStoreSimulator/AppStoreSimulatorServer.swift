import Foundation
import Hummingbird
public import Logging
import NIOCore
public import ServiceLifecycle
import Synchronization

/// The App Store simulator as a `Service`: HTTP server plus notification sender.
///
/// One port serves everything; environments are path prefixes, so a client configured with two
/// base URLs reaches the right one:
/// - `{baseURL}/production` — Server API (`/inApps/...`) and `/verifyReceipt` as Production
///   (Apple: `api.storekit.apple.com`, `buy.itunes.apple.com`)
/// - `{baseURL}/sandbox` — the same as Sandbox (Apple: `api.storekit-sandbox.apple.com`,
///   `sandbox.itunes.apple.com`)
/// - `{baseURL}/sim/v1` — the control API (never faulted)
///
/// ```swift
/// let simulator = try AppStoreSimulatorServer(configuration: .init())
/// // run it in a ServiceGroup, then:
/// let url = try await simulator.baseURL()          // "http://127.0.0.1:54321"
/// let root = simulator.rootCertificatePath         // PEM file to trust
/// ```
public final class AppStoreSimulatorServer: Service {
    /// PEM file holding the simulator's root certificate, written during `init`.
    public let rootCertificatePath: String
    /// The signing chain, for tests that verify what the simulator signs.
    public let certificateAuthority: CertificateAuthority

    private let configuration: AppStoreSimulatorConfiguration
    private let logger: Logger
    private let store: Store
    private let sender: NotificationSender
    private let faults: FaultState
    private let stats = TrafficStats()
    private let consumption = ConsumptionLog()
    private let readiness = Readiness()

    /// Creates (or loads from `stateDirectory`) the CA and writes the root PEM; binds nothing yet.
    public init(configuration: AppStoreSimulatorConfiguration, logger: Logger = Logger(label: "iap.simulator")) throws {
        let configuration = try configuration.validated()
        self.configuration = configuration
        self.logger = logger
        let authority =
            try configuration.stateDirectory.map {
                try CertificateAuthority.loadOrCreate(directory: $0, leafValidity: configuration.leafValidity)
            } ?? CertificateAuthority.generate(leafValidity: configuration.leafValidity)
        self.certificateAuthority = authority
        let rootPath =
            configuration.rootCertificatePath
            ?? configuration.stateDirectory.map { URL(fileURLWithPath: $0).appendingPathComponent("root.pem").path }
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("iap-simulator-\(UUID().uuidString.prefix(8))-root.pem").path
        try authority.writeRoot(to: rootPath)
        self.rootCertificatePath = rootPath
        let faults = FaultState(configuration.faults)
        self.sender = NotificationSender(configuration: configuration, faults: faults, logger: logger)
        self.store = Store(
            signer: try JWSSigner(authority: authority), receipts: ReceiptEncoder(authority: authority),
            settings: configuration, sender: sender
        )
        self.faults = faults
    }

    /// `http://host:port` once the server listens (waits until then).
    ///
    /// - Throws: `SimulatorError` if the server stopped before it bound its port.
    public func baseURL() async throws -> String {
        let port = try await readiness.wait()
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)"
    }

    public func run() async throws {
        let application = Application(
            router: try buildRouter(),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "iap-app-store-simulator"
            ),
            services: [sender],
            onServerRunning: { [readiness] channel in
                readiness.ready(port: channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
        do {
            try await application.runService()
        } catch {
            readiness.fail(SimulatorError(.invalidConfiguration, "simulator server stopped: \(error)"))
            throw error
        }
        readiness.fail(SimulatorError(.invalidConfiguration, "simulator server stopped"))
    }

    func buildRouter() throws -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        ControlAPI(store: store, faults: faults, stats: stats, rootPEM: try certificateAuthority.rootPEM()).register(
            on: router)
        ConsumptionControlAPI(store: store, log: consumption).register(on: router)
        let authenticator = BearerTokenAuthenticator(keys: configuration.apiKeys)
        let receipts = ReceiptEncoder(authority: certificateAuthority)
        for (prefix, environment) in [
            ("production", AppleValues.Environment.production), ("sandbox", AppleValues.Environment.sandbox),
        ] {
            let api = router.group(RouterPath(prefix))
                .add(middleware: TrafficStatsMiddleware(stats: stats, surface: .serverAPI))
                .add(
                    middleware: FaultMiddleware(
                        state: faults, stats: stats, surface: .serverAPI, hangDuration: configuration.faultHangDuration)
                )
            ServerAPI(
                store: store, environment: environment, appAppleId: configuration.appAppleId,
                authenticator: authenticator
            )
            .register(on: api)
            ConsumptionAPI(store: store, environment: environment, authenticator: authenticator, log: consumption)
                .register(on: api)
            ServerActionsAPI(store: store, environment: environment, authenticator: authenticator).register(on: api)
            let verify = router.group(RouterPath(prefix))
                .add(middleware: TrafficStatsMiddleware(stats: stats, surface: .verifyReceipt))
                .add(
                    middleware: FaultMiddleware(
                        state: faults, stats: stats, surface: .verifyReceipt,
                        hangDuration: configuration.faultHangDuration
                    ))
            VerifyReceiptAPI(
                store: store, environment: environment, sharedSecret: configuration.sharedSecret, receipts: receipts
            )
            .register(on: verify)
        }
        return router
    }
}

/// Lets callers wait for the bound port, or learn that the server never came up.
private final class Readiness: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Int, any Error>])
        case ready(Int)
        case failed(SimulatorError)
    }

    private let state = Mutex(State.waiting([]))

    func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let immediate: Result<Int, SimulatorError>? = state.withLock { state in
                switch state {
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                case .ready(let port): return .success(port)
                case .failed(let error): return .failure(error)
                }
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    func ready(port: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .ready(port)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }

    func fail(_ error: SimulatorError) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int, any Error>] in
            switch state {
            case .waiting(let waiters):
                state = .failed(error)
                return waiters
            case .ready:
                state = .failed(error)
                return []
            case .failed:
                return []
            }
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}
