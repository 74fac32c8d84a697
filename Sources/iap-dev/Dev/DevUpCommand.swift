import ArgumentParser
import Foundation
import Hosting
import LocalStack
import UnixSignals

/// `iap-dev dev up`: the embedded stack for local work, until interrupted.
struct DevUpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract:
            "Start the embedded stack: broker, redis-server, App Store simulator, the four workers and iap-reconcile.",
        discussion: """
            With --json, prints one JSON line once everything is ready (a contract):
            {"kafka": "...", "redis": "redis://...", "simulator": "http://...", "rootCertificate": "...",
             "bundleId": "...", "ops": {"iap-intake": "http://...", ...}, ...}
            then runs until SIGINT or SIGTERM, which drains the workers before exiting.
            """
    )

    @OptionGroup var stack: LocalStackOptions
    @Flag(help: "Print the ready line as JSON.") var json = false

    func run() async throws {
        let logger = CLILogging.logger("iap.dev")
        let running = try await LocalStack.start(try stack.configuration(), logger: logger)
        let endpoints = running.endpoints
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Unbuffered, so a parent reading our pipe sees the line at once.
            FileHandle.standardOutput.write(try encoder.encode(endpoints) + Data("\n".utf8))
        } else {
            print("kafka      \(endpoints.kafka)")
            print("redis      \(endpoints.redis)")
            print("simulator  \(endpoints.simulator)  (root: \(endpoints.rootCertificate))")
            if let gateway = endpoints.gateway { print("gateway    \(gateway)/apple/notifications") }
            for (name, url) in endpoints.ops.sorted(by: { $0.key < $1.key }) {
                print("\(name.padding(toLength: 11, withPad: " ", startingAt: 0))\(url)/metrics")
            }
            print("logs       \(endpoints.logs)")
            print("ready; Ctrl-C stops everything")
        }
        for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) { break }
        await running.stop()
    }
}

/// Options shared by every command that starts the embedded stack.
struct LocalStackOptions: ParsableArguments {
    @Option(help: "Pipeline file the dev topology is derived from.") var pipeline = "pipelines/iap.yaml"
    @Option(help: "Partitions of every topic on the embedded broker.") var partitions = 4
    @Option(help: "Workers to start: all, none, or a comma-separated list (iap-intake,iap-verify,...).") var workers =
        "all"
    @Option(help: "Replicas of each worker.") var replicas = 1
    @Option(name: .customLong("bin-dir"), help: "Directory holding the worker executables (default: next to iap).")
    var binDirectory: String?
    @Option(
        name: .customLong("state-dir"),
        help:
            "Directory for the dev pipeline file, keys and logs, kept on exit (default: a new temp dir, removed on exit)."
    ) var stateDirectory: String?
    @Option(
        name: .customLong("unmatched-window"), help: "Seconds a transaction waits for its order before iap.unmatched.")
    var unmatchedWindow = 20.0
    @Option(name: .customLong("apple-latency"), help: "Milliseconds the simulator adds to every Apple call.")
    var appleLatency = 0
    @Option(
        name: [.customLong("apple-rate-limit"), .customLong("rate-limit")],
        help: "Shared Apple calls per second per endpoint across every replica (IAP_APPLE_RATE_LIMIT; 0: off).")
    var appleRateLimit = 40
    @Flag(
        name: .customLong("no-gateway"),
        help: "Do not start iap-gateway: notifications reach the pipeline only through iap-reconcile.")
    var noGateway = false
    @Flag(
        name: .customLong("no-reconcile"),
        help: "Do not start iap-reconcile (started with all workers; the demo's lost-notification scenario needs it).")
    var noReconcile = false
    @Option(name: .customLong("reconcile-interval"), help: "Seconds between iap-reconcile runs.")
    var reconcileInterval = 2.0

    func configuration() throws -> LocalStackConfiguration {
        var configuration = LocalStackConfiguration()
        configuration.pipelinePath = pipeline
        configuration.partitions = partitions
        switch workers {
        case "all": configuration.workers = LocalStackConfiguration.allWorkers
        case "none": configuration.workers = []
        default:
            let names = workers.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let unknown = names.filter { !LocalStackConfiguration.allWorkers.contains($0) }
            guard unknown.isEmpty else {
                throw ValidationError("unknown workers \(unknown); choose from \(LocalStackConfiguration.allWorkers)")
            }
            configuration.workers = names
        }
        configuration.replicas = replicas
        configuration.binDirectory = binDirectory
        configuration.stateDirectory = stateDirectory
        configuration.unmatchedWindow = .milliseconds(Int64(unmatchedWindow * 1000))
        configuration.appleLatency = .milliseconds(appleLatency)
        configuration.appleRateLimit = appleRateLimit
        configuration.gateway = !noGateway
        configuration.reconcile = !noReconcile && workers == "all"
        guard reconcileInterval > 0, reconcileInterval.isFinite else {
            throw ValidationError("--reconcile-interval must be a positive number of seconds")
        }
        configuration.reconcileInterval = .milliseconds(Int64(reconcileInterval * 1000))
        return configuration
    }
}
