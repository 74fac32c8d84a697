import AppStoreSimulator
import AsyncHTTPClient
import Basics
import Catalog
import Foundation
import Gateway
import Hosting
import Kafka
public import LocalServices
public import Logging
import NIOCore
import NIOHTTP1
import Pipeline
public import Processes
import ReadAPI
import Reconcile
import Redis
import ServiceLifecycle
import Settings
import Synchronization
public import Topology
import WorkerCommon

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded stack of `iap-dev dev up`: librdkafka's mock cluster in this process
/// (real Kafka protocol on loopback), a `redis-server` child, the App Store simulator in this
/// process, and the workers (and gateway, reconcile) configured against them, as child
/// processes or as tasks of this process (``MemberMode``).
///
/// Used by `iap-dev dev up`, `iap-dev demo`, `iap-dev bench e2e` and the tests: in process mode all of
/// them exercise the wiring a deployment has, separate processes talking over TCP; in-process
/// members still talk to the broker, Redis and the simulator over TCP, only without a process
/// of their own.
public final class LocalStack: Sendable {
    public let endpoints: LocalStackEndpoints
    public let cluster: KafkaMockCluster
    public let redis: LocalRedisServer
    public let configuration: LocalStackConfiguration
    /// The pipeline file the stack runs (the dev file derived from `configuration.pipelinePath`,
    /// at `endpoints.pipeline`): where the demo, the soak and the benchmarks find their topics.
    public let pipeline: PipelineFile
    /// The settings every process of the stack reads (its own ops port and client id aside):
    /// what an `iap` command run against this stack reads too (`iap support`, `iap notifications test`).
    public let baseEnvironment: [String: String]
    private let simulatorGroup: ServiceGroup
    private let simulatorTask: Task<Void, any Error>
    private let members: Mutex<[String: any StackMember]>
    private let binDirectory: String
    private let environments: [String: [String: String]]
    /// The temp directory `start` made (no `stateDirectory` configured); `stop` removes it.
    private let ownedDirectory: String?
    let logger: Logger

    /// Starts everything and returns once every worker answers `/readyz` with 200.
    public static func start(_ configuration: LocalStackConfiguration, logger: Logger) async throws -> LocalStack {
        let directory =
            configuration.stateDirectory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("iap-dev-\(UUID().uuidString.prefix(8))").path
        let logs = directory + "/logs"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)

        let source = try PipelineFile.load(path: configuration.pipelinePath)
        let pipelinePath = directory + "/pipeline.yaml"
        try DevPipelineFile.render(source, configuration: configuration).write(
            toFile: pipelinePath, atomically: true, encoding: .utf8)
        let pipeline = try PipelineFile.load(path: pipelinePath)

        let cluster = try KafkaMockCluster(brokers: configuration.brokers, logger: logger)
        for topic in pipeline.allTopics {
            try await cluster.createTopic(topic.name, partitions: Int32(topic.partitions))
        }
        let redis = try await LocalRedisServer.start(
            appendOnlyDirectory: configuration.redisAppendOnly ? directory : nil)

        let binDirectory = configuration.binDirectory ?? Self.executableDirectory()
        // A member runs when asked for and when there is something to run: its task in process,
        // its executable as a process.
        let runs = { (wanted: Bool, executable: String) in
            wanted
                && (configuration.members == .inProcess
                    || FileManager.default.isExecutableFile(atPath: binDirectory + "/" + executable))
        }
        let gatewayRuns = runs(configuration.gateway, "iap-gateway")
        let gatewayPort = gatewayRuns ? try LocalRedisServer.freeLoopbackPort() : nil
        let gatewayURL = gatewayPort.map { "http://127.0.0.1:\($0)" }
        let apiRuns = runs(configuration.api, "iap-api")
        let apiPort = apiRuns ? try LocalRedisServer.freeLoopbackPort() : nil
        let apps = [configuration.bundleId] + configuration.otherApps
        let readKey = apiRuns ? APIKeyring.newKey(name: "dev", apps: apps.joined(separator: ",")) : nil

        let keyPath = directory + "/apple-api-key.p8"
        let apiKey = try ServerAPIKey.loadOrCreateP8(keyId: "LOCALSTACK", issuerId: "local-issuer", path: keyPath)
        let simulator = try AppStoreSimulatorServer(
            configuration: .init(
                rootCertificatePath: directory + "/simulator-root.pem", bundleId: configuration.bundleId,
                notifyURL: gatewayURL.map { $0 + "/apple/notifications" }, retryTimeScale: 0.000_3,
                notificationTimeout: configuration.appleNotificationTimeout,
                faults: FaultConfiguration(latencyMs: Int(configuration.appleLatency / .milliseconds(1))),
                apiKeys: [apiKey]
            ),
            logger: logger
        )
        let simulatorGroup = ServiceGroup(configuration: .init(services: [simulator], logger: logger))
        let simulatorTask = Task { try await simulatorGroup.run() }
        let simulatorURL = try await simulator.baseURL()

        // Written under the names of the `Setting`s the children read them through, so a
        // renamed setting cannot leave the stack configuring a name nobody reads.
        let kafkaProperty = ClusterSettings.settingName(forKafkaProperty:)
        var base: [String: String] = [
            ClusterSettings.kafkaBrokers.name: cluster.bootstrapServers,
            RedisSettings.url.name: redis.url,
            ClusterSettings.pipeline.name: pipelinePath,
            HostSettings.opsHost.name: "127.0.0.1",
            StageSettings.rootCertificates.name: simulator.rootCertificatePath,
            StageSettings.appleAPIURLKey.name: simulatorURL + "/production",
            StageSettings.appleSandboxAPIURLKey.name: simulatorURL + "/sandbox",
            StageSettings.verifyReceiptURLKey.name: simulatorURL + "/production/verifyReceipt",
            StageSettings.verifyReceiptSandboxURLKey.name: simulatorURL + "/sandbox/verifyReceipt",
            StageSettings.appleKeyIdKey.name: apiKey.keyId,
            StageSettings.appleIssuerIdKey.name: "local-issuer",
            StageSettings.applePrivateKeyPathKey.name: keyPath,
            StageSettings.appleRateLimitKey.name: String(configuration.appleRateLimit),
            StageSettings.deployment.name: "Production",
            StageSettings.acceptSandbox.name: "true",
            // The server finishes what it granted (D55), so the demo shows Finish Transaction.
            StageKeys.confirmFinishTransactions.name: "true",
            HostSettings.shutdownGrace.name: String(Int(configuration.shutdownGrace / .seconds(1))),
            WorkerSettings.lagInterval.name: "2",
            // The mock cluster runs in this process: rebalance quickly when a child restarts.
            kafkaProperty("session.timeout.ms"): "6000",
            kafkaProperty("heartbeat.interval.ms"): "500",
            // The mock broker answers a fetch only when fetch.wait.max.ms (500 ms by default)
            // runs out, even when records arrived meanwhile: every hop would cost up to half a
            // second (decision D12). Real brokers answer as soon as data is there.
            kafkaProperty("fetch.wait.max.ms"): "10",
            // Process plumbing, not a setting: the children search the same path as the stack.
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        // The simulator signs every app's data with one app id, as one Apple account would.
        let appAppleId = AppStoreSimulatorConfiguration().appAppleId
        if configuration.otherApps.isEmpty {
            base[StageSettings.bundleIdKey.name] = configuration.bundleId
            base[StageSettings.appAppleIdKey.name] = String(appAppleId)
        } else {
            let appsPath = directory + "/apps.yaml"
            try ("apps:\n" + apps.map { "  - {bundleId: \($0), appAppleId: \(appAppleId)}\n" }.joined())
                .write(toFile: appsPath, atomically: true, encoding: .utf8)
            base[StageSettings.appsKey.name] = appsPath
        }
        base.merge(configuration.workerEnvironment) { _, new in new }

        var environments: [String: [String: String]] = [:]
        var ops: [String: String] = [:]
        var instances: [(name: String, executable: String)] = []
        for worker in configuration.workers {
            for replica in 1...max(1, configuration.replicas) {
                let name = replica == 1 ? worker : "\(worker)-\(replica)"
                let port = try LocalRedisServer.freeLoopbackPort()
                var environment = base
                environment[HostSettings.opsPort.name] = String(port)
                environment[HostSettings.clientId.name] = name
                environments[name] = environment
                ops[name] = "http://127.0.0.1:\(port)"
                instances.append((name, worker))
            }
        }
        if configuration.reconcile {
            var environment = base
            let port = try LocalRedisServer.freeLoopbackPort()
            environment[HostSettings.opsPort.name] = String(port)
            environment[HostSettings.clientId.name] = "iap-reconcile"
            environment[ReconcileSettings.interval.name] = String(configuration.reconcileInterval.seconds)
            // The embedded stack's history is as old as the stack.
            environment[ReconcileSettings.lookback.name] = "3600"
            environments["iap-reconcile"] = environment
            ops["iap-reconcile"] = "http://127.0.0.1:\(port)"
            instances.append(("iap-reconcile", "iap-reconcile"))
        }
        if let apiPort, let readKey {
            let keysPath = directory + "/api-keys"
            try (readKey.line + "\n").write(toFile: keysPath, atomically: true, encoding: .utf8)
            var environment = base
            let opsPort = try LocalRedisServer.freeLoopbackPort()
            environment[ReadAPIKeys.listenHost.name] = "127.0.0.1"
            environment[ReadAPIKeys.listenPort.name] = String(apiPort)
            environment[ReadAPIKeys.keysFile.name] = keysPath
            if let catalog = configuration.catalogPath, FileManager.default.fileExists(atPath: catalog) {
                environment[ProductCatalogKeys.file.name] = URL(fileURLWithPath: catalog).path
            }
            environment[HostSettings.opsPort.name] = String(opsPort)
            environments["iap-api"] = environment
            ops["iap-api"] = "http://127.0.0.1:\(opsPort)"
            instances.append(("iap-api", "iap-api"))
        }
        if let gatewayPort {
            var environment = base
            let opsPort = try LocalRedisServer.freeLoopbackPort()
            environment[GatewaySettings.listenHost.name] = "127.0.0.1"
            environment[GatewaySettings.listenPort.name] = String(gatewayPort)
            environment[HostSettings.opsPort.name] = String(opsPort)
            environments["iap-gateway"] = environment
            ops["iap-gateway"] = "http://127.0.0.1:\(opsPort)"
            instances.append(("iap-gateway", "iap-gateway"))
        }

        let stack = LocalStack(
            endpoints: LocalStackEndpoints(
                kafka: cluster.bootstrapServers, redis: redis.url, simulator: simulatorURL,
                rootCertificate: simulator.rootCertificatePath,
                bundleId: configuration.bundleId, apps: apps, ops: ops, gateway: gatewayURL,
                api: apiPort.map { "http://127.0.0.1:\($0)" }, apiKey: readKey?.key, pipeline: pipelinePath, logs: logs
            ),
            cluster: cluster, redis: redis, configuration: configuration, pipeline: pipeline, baseEnvironment: base,
            simulatorGroup: simulatorGroup, simulatorTask: simulatorTask,
            binDirectory: binDirectory, environments: environments,
            ownedDirectory: configuration.stateDirectory == nil ? directory : nil, logger: logger
        )
        do {
            for instance in instances {
                try stack.spawn(instance.name, executable: instance.executable)
            }
            try await stack.waitUntilReady(instances.map(\.name))
        } catch {
            await stack.stop(keepingState: true)  // the workers' logs say why
            throw error
        }
        return stack
    }

    private init(
        endpoints: LocalStackEndpoints, cluster: KafkaMockCluster, redis: LocalRedisServer,
        configuration: LocalStackConfiguration, pipeline: PipelineFile, baseEnvironment: [String: String],
        simulatorGroup: ServiceGroup, simulatorTask: Task<Void, any Error>, binDirectory: String,
        environments: [String: [String: String]], ownedDirectory: String?, logger: Logger
    ) {
        self.ownedDirectory = ownedDirectory
        self.endpoints = endpoints
        self.cluster = cluster
        self.redis = redis
        self.configuration = configuration
        self.pipeline = pipeline
        self.baseEnvironment = baseEnvironment
        self.simulatorGroup = simulatorGroup
        self.simulatorTask = simulatorTask
        self.members = Mutex([:])
        self.binDirectory = binDirectory
        self.environments = environments
        self.logger = logger
    }

    /// Instance names of the members (`iap-intake`, `iap-intake-2`, …, `iap-gateway`).
    public var processNames: [String] { environments.keys.sorted() }

    /// The child process of an instance, if any (none in ``MemberMode/inProcess``).
    public func process(_ name: String) -> ChildProcess? { member(name) as? ChildProcess }

    /// Whether an instance is running (its process, or its task in process).
    public func isRunning(_ name: String) -> Bool { member(name)?.isRunning ?? false }

    /// Stops an instance without a drain and waits until it is gone: SIGKILL for a process (a
    /// crash: no drain, no commit); cancellation for an in-process member.
    public func kill(_ name: String) async {
        await member(name)?.kill()
    }

    /// Instances that ended on their own (a worker that found its Redis state lost exits 75 for
    /// its supervisor to restart it; in process, its task ends with the error), in name order.
    public var exited: [String] {
        members.withLock { members in members.filter { !$0.value.isRunning }.map(\.key).sorted() }
    }

    private func member(_ name: String) -> (any StackMember)? { members.withLock { $0[name] } }

    /// `FLUSHALL`: Redis forgets everything, as after a failover to an asynchronously replicated
    /// replica or a restart without persistence.
    public func loseRedisData() async throws {
        let client = RedisClient(configuration: try redis.configuration(poolSize: 1))
        do {
            try await client.execute(FLUSHALL())
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    /// Starts an instance again (after ``kill(_:)``) and waits for its `/readyz`.
    public func restart(_ name: String) async throws {
        if let member = member(name), member.isRunning { await member.stop(grace: configuration.shutdownGrace) }
        // The ports the instance listens on: a process's are closed with it; an in-process
        // member's listeners may close just after its task ended.
        let environment = environments[name] ?? [:]
        for key in [HostSettings.opsPort.name, GatewaySettings.listenPort.name, ReadAPIKeys.listenPort.name] {
            guard let port = environment[key].flatMap({ Int($0) }) else { continue }
            guard await LocalRedisServer.waitUntilFree(port) else {
                throw LocalStackError("\(name) cannot restart: port \(port) (\(key)) is still in use")
            }
        }
        let executable = name.split(separator: "-").prefix(2).joined(separator: "-")
        try spawn(name, executable: executable)
        try await waitUntilReady([name])
    }

    /// SIGTERM to every member (they drain, commit and leave their groups), then the simulator,
    /// Redis and the broker. A temp directory `start` made (logs, keys, the dev pipeline) is
    /// removed unless `keepingState`: callers keep it when something failed, so the logs they
    /// point at still exist. A configured `stateDirectory` is never removed.
    public func stop(keepingState: Bool = false) async {
        let running = members.withLock { Array($0.values) }
        await withTaskGroup(of: Void.self) { group in
            for member in running {
                group.addTask { [grace = configuration.shutdownGrace] in await member.stop(grace: grace) }
            }
        }
        await simulatorGroup.triggerGracefulShutdown()
        _ = try? await simulatorTask.value
        redis.stop()
        if let ownedDirectory, !keepingState {
            try? FileManager.default.removeItem(atPath: ownedDirectory)
        }
    }

    private func spawn(_ name: String, executable: String) throws {
        let environment = environments[name] ?? [:]
        let logPath = endpoints.logs + "/\(name).log"
        let member: any StackMember
        switch configuration.members {
        case .processes:
            let path = binDirectory + "/" + executable
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw LocalStackError(
                    "\(path) not found: build the workers first (swift build) or pass the directory holding them")
            }
            member = try ChildProcess(name: name, executable: path, environment: environment, output: .file(logPath))
        case .inProcess:
            member = try Self.inProcessMember(name, executable: executable, environment: environment, logPath: logPath)
        }
        members.withLock { $0[name] = member }
    }

    private func waitUntilReady(_ names: [String], timeout: Duration = .seconds(90)) async throws {
        let deadline = ContinuousClock.now + timeout
        for name in names {
            guard let base = endpoints.ops[name], let member = member(name) else { continue }
            while true {
                guard member.isRunning else {
                    throw LocalStackError(
                        "\(name) exited while starting; its log ends:\n\(member.logTail(bytes: 4_000))")
                }
                if await Self.isReady(base + "/readyz") { break }
                guard ContinuousClock.now < deadline else {
                    throw LocalStackError(
                        "\(name) was not ready within \(timeout); its log ends:\n\(member.logTail(bytes: 4_000))")
                }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    private static func isReady(_ url: String) async -> Bool {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)) else { return false }
        return response.status == .ok
    }

    /// `IAP_BIN_DIR` (read through the settings layer), else the directory of the running
    /// executable: `iap` and the workers are built side by side, and a test bundle sits in the
    /// same build directory.
    private static func executableDirectory() -> String {
        if let override = try? SettingsReader().optional(SettingsCatalog.binaryDirectory) { return override }
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        // An .xctest bundle on Linux is a file in the build directory; on macOS a directory tree.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
            || directory.lastPathComponent == "Contents"
        {
            directory = directory.deletingLastPathComponent()
        }
        return directory.path
    }
}
