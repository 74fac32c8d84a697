import AppStore
import AppStoreModels
import AppStoreSimulator
import Foundation
import Kafka
import LocalStack
import Logging
import Purchases
import Reconcile
import Redis
import ServiceLifecycle
import Synchronization
import TestSupport
import WorkerCommon

/// A simulator on a free port (no notify URL: its notifications stay in history), a real
/// redis-server, and a ``Reconciler`` over them whose Apple calls are recorded.
struct ReconcileHarness {
    static let bundleId = "com.example.game"
    let simulator: SimulatorClient
    let redis: RedisClient
    let calls: RecordingExecutor
    let clients: [(scope: ReconcileScope, client: AppStoreServerAPIClient)]

    static func run(_ body: (ReconcileHarness) async throws -> Void) async throws {
        var logger = Logger(label: "test.reconcile")
        logger.logLevel = .critical
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-reconcile-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keyPath = directory + "/key.p8"
        let key = try ServerAPIKey.loadOrCreateP8(keyId: "RECONCILE", issuerId: "issuer", path: keyPath)
        let server = try AppStoreSimulatorServer(
            configuration: .init(rootCertificatePath: directory + "/root.pem", bundleId: bundleId, apiKeys: [key]),
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let running = Task { try await group.run() }
        defer { running.cancel() }
        let base = try await server.baseURL()
        let calls = RecordingExecutor()
        let client = try AppStoreServerAPIClient(
            configuration: AppStoreServerAPIConfiguration(
                privateKeyPEM: try String(contentsOfFile: keyPath, encoding: .utf8), keyId: "RECONCILE",
                issuerId: "issuer", bundleId: bundleId, environment: .sandbox, sandboxFallback: false,
                productionBaseURL: base + "/production", sandboxBaseURL: base + "/sandbox"),
            executor: calls)
        do {
            try await withRedisClient { _, redis in
                try await body(
                    ReconcileHarness(
                        simulator: SimulatorClient(baseURL: base), redis: redis, calls: calls,
                        clients: [(ReconcileScope(bundleId: bundleId, environment: .sandbox), client)]))
            }
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }

    func reconciler(
        publisher: any ReconcilePublisher, options: Reconciler.Options = .init(),
        now: @escaping @Sendable () -> Timestamp = { Timestamp(Date()) }
    ) -> Reconciler {
        Reconciler(
            clients: clients, apple: ReconcileApple(gate: InMemoryAppleCallGate(callsPerSecond: 1000)),
            state: RedisReconcileState(client: redis), index: RedisSubscriptionExpiryIndex(client: redis),
            entitlements: RedisEntitlementStateStore(client: redis), publisher: publisher,
            topics: .init(notifications: "iap.notifications", purchases: "iap.purchases"), options: options, now: now,
            logger: Logger(label: "test.reconcile"))
    }

    /// `count` Sandbox purchases, each with its notification in the simulator's history.
    func purchases(_ count: Int) async throws -> [SimulatorClient.Transaction] {
        var made: [SimulatorClient.Transaction] = []
        for index in 0..<count {
            made.append(
                try await simulator.purchase(
                    productId: "gems_\(index)", type: "Consumable", bundleId: Self.bundleId, environment: "Sandbox"))
        }
        return made
    }
}

/// Every record published, in order; fails the publish after `failAfter` successful ones (a
/// reconcile killed between two pages).
final class RecordingPublisher: ReconcilePublisher {
    struct Stopped: Error {}
    private let state: Mutex<(records: [KafkaRecord], publishes: Int)> = Mutex(([], 0))
    private let failAfter: Int?

    init(failAfter: Int? = nil) { self.failAfter = failAfter }

    func publish(_ records: [KafkaRecord]) async throws {
        try state.withLock { state in
            if let failAfter, state.publishes >= failAfter { throw Stopped() }
            state.publishes += 1
            state.records += records
        }
    }

    var records: [KafkaRecord] { state.withLock { $0.records } }

    /// The signedPayload of every notification record.
    var payloads: [String] {
        records.compactMap { record in
            (try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any])?["signedPayload"]
                as? String
        }
    }
}

/// The Apple requests made, passed on to the simulator.
final class RecordingExecutor: AppleHTTPExecutor {
    struct Call: Sendable {
        var url: String
        var body: [String: Any]? {
            bodyBytes.flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
        }
        var bodyBytes: [UInt8]?
    }

    private let base = AsyncHTTPClientExecutor()
    private let recorded = Mutex<[Call]>([])

    func execute(_ request: AppleHTTPRequest, timeout: Duration) async throws(TransportFailure) -> AppleHTTPResponse {
        recorded.withLock { $0.append(Call(url: request.url, bodyBytes: request.body)) }
        return try await base.execute(request, timeout: timeout)
    }

    var calls: [Call] { recorded.withLock { $0 } }

    /// The notification history requests: their window and page token.
    var historyPages: [(start: Int64, end: Int64, token: String?)] {
        calls.filter { $0.url.contains("/notifications/history") }.map { call in
            let body = call.body ?? [:]
            let token = URLComponents(string: call.url)?.queryItems?.first { $0.name == "paginationToken" }?.value
            return (
                (body["startDate"] as? NSNumber)?.int64Value ?? -1, (body["endDate"] as? NSNumber)?.int64Value ?? -1,
                token
            )
        }
    }
}
