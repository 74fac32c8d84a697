import AppStoreSimulator
import Foundation
import Hosting
import Kafka
import LocalServices
import LocalStack
import Logging
import Pipeline
import Redis
import ServiceLifecycle
import TestSupport
import Testing
import Topology

@testable import WorkerCommon
@testable import Workers

/// A running simulator and the settings a stage needs to call and trust it.
struct SimulatorFixture {
    let client: SimulatorClient
    /// `IAP_BUNDLE_ID`, the Apple key, both API URLs and the simulator's root as trusted root.
    let appleEnvironment: [String: String]
}

/// Runs the App Store simulator with a fresh API key for the duration of `body`.
func withSimulator(bundleId: String, _ body: (SimulatorFixture) async throws -> Void) async throws {
    var logger = Logger(label: "test.simulator")
    logger.logLevel = .critical
    let keyPath = FileManager.default.temporaryDirectory
        .appendingPathComponent("iap-stage-\(UUID().uuidString.prefix(8)).p8").path
    defer { try? FileManager.default.removeItem(atPath: keyPath) }
    let apiKey = try ServerAPIKey.loadOrCreateP8(keyId: "KEYSTAGE", issuerId: "issuer-1", path: keyPath)
    let simulator = try AppStoreSimulatorServer(
        configuration: .init(bundleId: bundleId, apiKeys: [apiKey]), logger: logger)
    let simulatorGroup = ServiceGroup(configuration: .init(services: [simulator], logger: logger))

    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await simulatorGroup.run() }
        do {
            let baseURL = try await simulator.baseURL()
            try await body(
                SimulatorFixture(
                    client: SimulatorClient(baseURL: baseURL),
                    appleEnvironment: [
                        "IAP_BUNDLE_ID": bundleId, "IAP_APPLE_KEY_ID": "KEYSTAGE", "IAP_APPLE_ISSUER_ID": "issuer-1",
                        "IAP_APPLE_PRIVATE_KEY_PATH": keyPath, "IAP_APPLE_API_URL": baseURL + "/production",
                        "IAP_APPLE_SANDBOX_API_URL": baseURL + "/sandbox",
                        "IAP_APPLE_ROOT_CERTIFICATES": simulator.rootCertificatePath,
                        "IAP_APP_APPLE_ID": String(AppStoreSimulatorConfiguration().appAppleId),
                    ]))
        } catch {
            await simulatorGroup.triggerGracefulShutdown()
            throw error
        }
        await simulatorGroup.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

/// One stage running as its executable assembles it, and what a test drives it with.
struct StageRun {
    let spec: StageSpec
    let cluster: KafkaMockCluster
    let redis: TestRedisDatabase
    let producer: KafkaProducer

    /// A consumer of `topic` from its start, in a group of its own.
    func probe(_ topic: String) throws -> ConsumerProbe {
        try ConsumerProbe(cluster, group: "probe-\(topic)", topics: [topic])
    }
}

/// Runs `stage` of the shipped pipeline file (as `StageAssembly` builds it for its executable,
/// `adjust`ed) against a fresh mock cluster (the shipped topic names, so a cluster of its own)
/// and a database of its own on the shared redis-server, with `environment` on top of the
/// cluster's and Redis' settings.
func withStage(
    _ stage: StageName, environment extra: [String: String], adjust: (inout StageSpec) -> Void = { _ in },
    _ body: (StageRun) async throws -> Void
) async throws {
    var logger = Logger(label: "test.stage")
    logger.logLevel = .critical
    try await withRedisDatabase { redis in
        let file = try PipelineFile.load(
            path: SettingsTableTests.repository.appendingPathComponent("pipelines/iap.yaml").path)
        var spec = try file.stage(named: stage.rawValue)
        adjust(&spec)
        let cluster = try await TestKafka.cluster(
            topics: Dictionary(uniqueKeysWithValues: file.allTopics.map { ($0.name, Int32(2)) }))
        let environment = [
            "KAFKA_BROKERS": cluster.bootstrapServers, "REDIS_URL": redis.url,
            "IAP_KAFKA_SESSION_TIMEOUT_MS": "6000", "IAP_KAFKA_HEARTBEAT_INTERVAL_MS": "500",
        ].merging(extra, uniquingKeysWith: { $1 })
        var settings = try WorkerSettings(stage: stage.rawValue, environment: environment)
        settings.opsHost = "127.0.0.1"
        settings.opsPort = 0
        let stop = AsyncStream<Void>.makeStream()
        let assembly = StageAssembly(
            stage: stage, spec: spec, file: file, settings: settings,
            stageSettings: try StageSettings(stage: stage, environment: environment), logger: logger,
            stop: .trigger { for await _ in stop.stream { return } })
        let running = Task { try await assembly.run() }
        let producer = try TestKafka.producer(cluster)
        do {
            try await body(StageRun(spec: spec, cluster: cluster, redis: redis, producer: producer))
        } catch {
            stop.continuation.finish()
            // A stage that could not start is why the test failed: say so, not only the symptom.
            if case .failure(let failure) = await running.result { Issue.record(failure, "the stage stopped") }
            await producer.close()
            throw error
        }
        stop.continuation.finish()
        try await running.value
        await producer.close()
    }
}
