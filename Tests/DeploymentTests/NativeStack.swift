import AsyncHTTPClient
import Foundation
import Kafka
import LocalServices
import LocalStack
import Logging
import NIOCore
import NIOHTTP1
import Processes
import Redis
import Topology

/// One process a deployment file runs, as the file gives it (command, environment, mounts).
struct DeployedProcess {
    var name: String
    var file: String
    var command: [String]
    var environment: [String: String]
    /// Ports it listens on inside its container; each gets a free local port.
    var ports: Set<Int>
    /// Where the file checks it is ready (`/readyz` for every worker); nil: a one-shot that must exit 0.
    var readiness: (port: Int, path: String)?
    /// Container paths (mounts, volumes, secrets) and the local directory or file standing in.
    var paths: [String: String]
    var dependsOn: [String] = []
}

/// The stand-ins for what a deployment file expects around its processes: librdkafka's mock
/// cluster for the brokers, a `redis-server` child, free local ports for every listening port,
/// the image's executables (a directory holding exactly what scripts/image-executables lists for
/// the image's `dev` stage, linked from `.build/debug`, as that image's /usr/local/bin holds
/// exactly those; which service may run the developer tools `everyCommandTheFilesRunIsInTheImage`
/// checks), and the
/// processes themselves, started from it with exactly the environment and arguments the file
/// gives them, host names, ports and mounted paths rewritten.
final class NativeStack {
    static let workerExecutables: Set<String> = [
        "iap-intake", "iap-verify", "iap-match", "iap-grant", "iap-state", "iap-confirm", "iap-reconcile",
        "iap-gateway",
    ]
    /// Processes that talk to no Kafka (the read API reads Redis only): no `iap config check`
    /// stage, no producer to flush on shutdown, no Kafka credentials.
    static let kafkaFreeExecutables: Set<String> = ["iap-api"]
    static let readinessBound: Duration = .seconds(60)

    let directory: String
    let cluster: KafkaMockCluster
    let redis: LocalRedisServer
    /// The `dev` image's /usr/local/bin: the product list's executables, nothing else.
    let binDirectory: String
    /// The version every process's `iap_build_info` must carry.
    let version = DeploymentEndToEndTests.projectVersion
    private(set) var children: [ChildProcess] = []
    /// `host:port` as the files write it → the local address standing in for it (after `start`).
    private(set) var addresses: [String: String] = [:]

    init(label: String) async throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "iap-deploy-\(label)-\(UUID().uuidString.prefix(6))"
            ).path
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        binDirectory = directory + "/image/usr/local/bin"
        try FileManager.default.createDirectory(atPath: binDirectory, withIntermediateDirectories: true)
        let built = ProcessInfo.processInfo.environment["IAP_BIN_DIR"] ?? DeploymentFiles.path(".build/debug")
        for executable in try await DeploymentFiles.imageExecutables(stage: .dev) {
            guard FileManager.default.isExecutableFile(atPath: built + "/" + executable) else {
                throw DeploymentError("\(built)/\(executable) is missing: run `swift build --build-tests` first")
            }
            try FileManager.default.createSymbolicLink(
                atPath: binDirectory + "/" + executable, withDestinationPath: built + "/" + executable)
        }
        // The resource bundles the Dockerfile copies next to the executables.
        for bundle in try FileManager.default.contentsOfDirectory(atPath: built) where bundle.hasSuffix(".resources") {
            try FileManager.default.createSymbolicLink(
                atPath: binDirectory + "/" + bundle, withDestinationPath: built + "/" + bundle)
        }
        cluster = try KafkaMockCluster(brokers: 1, logger: Logger(label: "deployment-tests"))
        // Every topic of the shipped pipeline file, as `iap topics create` makes them.
        let pipeline = try PipelineFile.load(path: DeploymentFiles.path("pipelines/iap.yaml"))
        for topic in pipeline.allTopics {
            try await cluster.createTopic(topic.name, partitions: Int32(topic.partitions))
        }
        redis = try await LocalRedisServer.start()
    }

    var redisAddress: String { "127.0.0.1:\(redis.port)" }

    func stop() async {
        await withTaskGroup(of: Void.self) { group in
            for child in children { group.addTask { await child.stop(grace: .seconds(10)) } }
        }
        redis.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts `processes` in dependency order, each once those it depends on are ready (or, for
    /// one-shots, exited 0), and requires every readiness URL to answer 200 within the bound.
    /// `hosts` maps `host:port` as the files write it to a local address; the processes' own
    /// ports are added here, and `aliases` (a Kubernetes Service's `name:port`) point at one of them.
    func start(
        _ processes: [DeployedProcess], hosts: [String: String], aliases: [String: (process: String, port: Int)] = [:]
    ) async throws {
        for (process, rewriter) in try rewriters(processes, hosts: hosts, aliases: aliases) {
            try await launch(process, rewriter: rewriter)
        }
    }

    /// Runs only `iap config check` for each process, with its environment as `start` would give
    /// it: for files whose processes cannot run here (a SASL cluster).
    func checkSettings(
        _ processes: [DeployedProcess], hosts: [String: String], aliases: [String: (process: String, port: Int)] = [:]
    ) async throws {
        for (process, rewriter) in try rewriters(processes, hosts: hosts, aliases: aliases) {
            try await checkSettings(
                process, arguments: arguments(process, rewriter), environment: environment(process, rewriter))
        }
    }

    /// Each process, in dependency order, with what rewrites its values.
    private func rewriters(
        _ processes: [DeployedProcess], hosts: [String: String], aliases: [String: (process: String, port: Int)]
    ) throws -> [(DeployedProcess, Rewriter)] {
        var ports: [String: [Int: Int]] = [:]
        var hosts = hosts
        for process in processes {
            for port in process.ports.sorted() {
                let local = try LocalRedisServer.freeLoopbackPort()
                ports[process.name, default: [:]][port] = local
                hosts["\(process.name):\(port)"] = "127.0.0.1:\(local)"
            }
        }
        for (alias, target) in aliases {
            guard let local = ports[target.process]?[target.port] else {
                throw DeploymentError("\(alias) points at \(target.process):\(target.port), which nothing listens on")
            }
            hosts[alias] = "127.0.0.1:\(local)"
        }
        addresses = hosts
        return try ordered(processes).map { process in
            (process, Rewriter(hosts: hosts, ownPorts: ports[process.name] ?? [:], paths: process.paths))
        }
    }

    private func ordered(_ processes: [DeployedProcess]) throws -> [DeployedProcess] {
        var done: Set<String> = []
        var result: [DeployedProcess] = []
        var remaining = processes
        while !remaining.isEmpty {
            guard let next = remaining.firstIndex(where: { Set($0.dependsOn).isSubset(of: done) }) else {
                throw DeploymentError("dependency cycle or unknown dependency among \(remaining.map(\.name))")
            }
            let process = remaining.remove(at: next)
            done.insert(process.name)
            result.append(process)
        }
        return result
    }

    /// The image's executable of `process`: the test fails on a command the image lacks.
    private func executable(_ process: DeployedProcess) throws -> String {
        guard let name = process.command.first else {
            throw DeploymentError("\(process.file): \(process.name) has no command")
        }
        guard FileManager.default.isExecutableFile(atPath: binDirectory + "/" + name) else {
            throw DeploymentError(
                "\(process.file): \(process.name) runs \(name), which the image lacks (scripts/image-executables)")
        }
        return binDirectory + "/" + name
    }

    private func arguments(_ process: DeployedProcess, _ rewriter: Rewriter) -> [String] {
        var arguments = Array(process.command.dropFirst()).map { rewriter.argument($0) }
        if process.readiness == nil, process.command.starts(with: ["iap", "topics", "create"]) {
            // librdkafka's mock cluster does not serve CreateTopics: the stand-in broker already
            // has every topic (init), so the one-shot runs with the file's arguments as a dry run
            // (they parse, the pipeline file loads, the plan prints) instead of timing out.
            arguments.append("--dry-run")
        }
        return arguments
    }

    private func environment(_ process: DeployedProcess, _ rewriter: Rewriter) -> [String: String] {
        var environment: [String: String] = [:]
        for (key, value) in process.environment { environment[key] = rewriter.value(key: key, value) }
        // The image's PATH: the executables, then the system.
        environment["PATH"] = binDirectory + ":/usr/bin:/bin"
        return environment
    }

    /// What the process would refuse, said plainly before it is started.
    private func checkSettings(_ process: DeployedProcess, arguments: [String], environment: [String: String])
        async throws
    {
        let name = URL(fileURLWithPath: try executable(process)).lastPathComponent
        guard Self.workerExecutables.contains(name) else { return }
        let stage = name == "iap-gateway" ? "gateway" : String(name.dropFirst(4))
        var check = ["config", "check", "--stage", stage]
        if let index = arguments.firstIndex(of: "--pipeline"), index + 1 < arguments.count {
            check += ["--pipeline", arguments[index + 1]]
        }
        let (code, output) = try await Tools.run(
            binDirectory + "/iap", check, environment: environment, log: logPath("\(process.name)-config-check"))
        guard code == 0 else {
            throw DeploymentError(
                "\(process.file): \(process.name): `iap config check --stage \(stage)` refused:\n\(output)")
        }
    }

    private func launch(_ process: DeployedProcess, rewriter: Rewriter) async throws {
        let executable = try executable(process)
        let arguments = arguments(process, rewriter)
        let environment = environment(process, rewriter)
        let origin = "\(process.file): \(process.name)"
        try await checkSettings(process, arguments: arguments, environment: environment)

        let child = try ChildProcess(
            name: process.name, executable: executable, arguments: arguments, environment: environment,
            output: .file(logPath(process.name)))
        children.append(child)
        let deadline = ContinuousClock.now + Self.readinessBound
        guard let readiness = process.readiness else {
            while child.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            guard !child.isRunning, child.exitCode == 0 else {
                throw DeploymentError(
                    "\(origin) (one-shot) did not exit 0 within \(Self.readinessBound) "
                        + "(exit \(child.exitCode.map(String.init) ?? "none")); its log ends:\n\(child.logTail())")
            }
            return
        }
        guard let local = rewriter.ownPorts[readiness.port] else {
            throw DeploymentError("\(origin): readiness port \(readiness.port) is not a port it listens on")
        }
        let url = "http://127.0.0.1:\(local)\(readiness.path)"
        while true {
            guard child.isRunning else {
                throw DeploymentError("\(origin) exited while starting; its log ends:\n\(child.logTail())")
            }
            if await Self.answers200(url) {
                if readiness.path == "/readyz" {
                    try await requireBuildInfo("http://127.0.0.1:\(local)/metrics", origin)
                }
                return
            }
            guard ContinuousClock.now < deadline else {
                throw DeploymentError(
                    "\(origin): \(readiness.path) not 200 within \(Self.readinessBound); its log ends:\n"
                        + child.logTail())
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    private func logPath(_ name: String) -> String { directory + "/logs/\(name).log" }

    /// The process says which build it is: `iap_build_info` with the project's version.
    private func requireBuildInfo(_ url: String, _ origin: String) async throws {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
        let body = String(buffer: try await response.body.collect(upTo: 8 << 20))
        let info = body.split(separator: "\n").first { $0.hasPrefix("iap_build_info{") }
        guard let info, info.contains("version=\"\(version)\"") else {
            throw DeploymentError(
                "\(origin): /metrics has no iap_build_info with version \"\(version)\": \(info.map(String.init) ?? "none")"
            )
        }
    }

    private static func answers200(_ url: String) async -> Bool {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)) else { return false }
        return response.status == .ok
    }
}

/// Rewrites one process's values: `host:port` of other services and of the stand-ins to local
/// addresses, its own listening ports to free ones, and container paths to local ones.
struct Rewriter {
    var hosts: [String: String]
    var ownPorts: [Int: Int]
    var paths: [String: String]

    func value(key: String, _ value: String) -> String {
        if key.hasSuffix("_PORT"), let port = Int(value), let local = ownPorts[port] { return String(local) }
        return rewrite(value)
    }

    func argument(_ argument: String) -> String {
        if let port = Int(argument), let local = ownPorts[port] { return String(local) }
        return rewrite(argument)
    }

    private func rewrite(_ value: String) -> String {
        var result = value
        for (host, local) in hosts.sorted(by: { $0.key.count > $1.key.count }) {
            result = replace(
                in: result,
                pattern: "(?<=^|/|,|@)" + NSRegularExpression.escapedPattern(for: host)
                    + "(?=$|/|,)", with: local)
            // A Kubernetes Service on port 80 is written without it: http://apple/production.
            if host.hasSuffix(":80") {
                let bare = NSRegularExpression.escapedPattern(for: String(host.dropLast(3)))
                result = replace(in: result, pattern: "(?<=//)" + bare + "(?=$|/)", with: local)
            }
        }
        // Paths, per comma-separated piece (IAP_APPLE_ROOT_CERTIFICATES is a list).
        let pieces = result.split(separator: ",", omittingEmptySubsequences: false).map { piece -> String in
            let piece = String(piece)
            for (container, local) in paths.sorted(by: { $0.key.count > $1.key.count })
            where piece == container || piece.hasPrefix(container.hasSuffix("/") ? container : container + "/") {
                return local + piece.dropFirst(container.count)
            }
            return piece
        }
        return pieces.joined(separator: ",")
    }

    private func replace(in text: String, pattern: String, with replacement: String) -> String {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return text }
        return expression.stringByReplacingMatches(
            in: text, range: NSRange(text.startIndex..., in: text),
            withTemplate: NSRegularExpression.escapedTemplate(for: replacement))
    }
}

/// The validators and helper commands the test runs; a missing one fails with what to install.
enum Tools {
    static func which(_ tool: String) throws -> String {
        do {
            return try ChildProcess.locate(tool)
        } catch {
            throw DeploymentError(
                tool == "kubectl"
                    ? "kubectl is not on PATH: the test renders with `kubectl kustomize` (kustomize v5; the build "
                        + "machines' image has kubectl v1.32), as `kubectl apply -k` does"
                    : "\(tool) is not on PATH: `make setup` installs it (Makefile APT_PACKAGES, PIP_PACKAGES)")
        }
    }

    /// Runs a command to its end; its output (stdout and stderr) comes back with the exit code,
    /// and is kept in `log` when one is named.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, log: String? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> (code: Int32, output: String) {
        let completion = try await ChildProcess.run(
            try which(executable), arguments, environment: environment, timeout: timeout)
        if let log { try completion.output.write(toFile: log, atomically: true, encoding: .utf8) }
        return (completion.exitCode ?? -1, completion.output)
    }
}
