import ArgumentParser
import Foundation
import Hosting
import LocalStack

/// `iap-dev soak`: the embedded stack under load with faults on demand, judged by what reached the
/// topics. Exits non-zero on any loss, double grant, hint-bound purchase, call before a
/// Retry-After, process death, unrejected bad input or offset short of its log end.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract:
            "Run purchases through the embedded stack while injecting faults; check nothing is lost or granted twice.",
        discussion: """
            Faults: --kill-workers SIGKILLs a random worker every few seconds and restarts it; --redis-restart kills
            redis-server (append-only file kept) and starts it again; --redis-loss empties Redis (FLUSHALL) mid-flight;
            --broker-faults takes the broker down for a few seconds and injects produce, commit and fetch errors;
            --apple-faults RATE makes the simulator answer that share of Apple calls with a fault (--apple-faults-for
            SECONDS: only for the first seconds, then Apple is healthy again); --bad-input RATE publishes that many fuzzed
            events (and gateway bodies) per purchase. --all-faults turns every one on.
            --backlog N publishes N bare transaction ids at once before the steady stream: with --rate-limit (the
            shared Apple budget, calls/s) they wait for their turn at Apple, and none may be dead-lettered.
            The report (--json for JSON) counts purchases, grants, losses, double grants, dead letters, rejections by
            reason, calls made before a Retry-After, process deaths, committed offsets against the log end, and drain
            time.
            """
    )

    @OptionGroup var stack: LocalStackOptions
    @Option(help: "Purchases to publish.") var purchases = 10_000
    @Option(help: "Purchases published per second.") var rate = 200
    @Option(name: .customLong("kill-workers"), help: "Seconds between SIGKILLs of a random worker (0: none).")
    var killWorkers = 0.0
    @Flag(name: .customLong("redis-restart"), help: "Kill and restart redis-server mid-flight (with AOF).")
    var redisRestart = false
    @Flag(name: .customLong("redis-loss"), help: "FLUSHALL Redis mid-flight.") var redisLoss = false
    @Flag(name: .customLong("broker-faults"), help: "Broker outage and injected produce/commit/fetch errors.")
    var brokerFaults = false
    @Option(name: .customLong("apple-faults"), help: "Share of Apple calls answered with a fault.") var appleFaults =
        0.0
    @Option(
        name: .customLong("apple-faults-for"),
        help: "Seconds Apple's faults last from the first publish, then Apple is healthy (default: the whole run).")
    var appleFaultsFor: Double?
    @Option(help: "Bare transaction ids published at once before the steady stream (a backlog).") var backlog = 0
    @Option(name: .customLong("bad-input"), help: "Fuzzed events (and gateway bodies) per purchase.") var badInput = 0.0
    @Flag(
        name: .customLong("all-faults"),
        help: "Every fault: kills every 8 s, Redis restart and loss, broker faults, Apple faults 0.1, bad input 0.05.")
    var allFaults = false
    @Option(name: .customLong("drain-timeout"), help: "Seconds the pipeline may take to settle after the last publish.")
    var drainTimeout = 300.0
    @Option(help: "Seed of the fault and bad-input schedule.") var seed: UInt64 = 1
    @Option(help: "Write the JSON report to this file as well.") var output: String?
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        lineBufferedOutput()
        var soak = allFaults ? SoakConfiguration.everyFault(purchases: purchases) : SoakConfiguration()
        soak.purchases = purchases
        soak.rate = rate
        soak.seed = seed
        soak.drainTimeout = .milliseconds(Int64(drainTimeout * 1000))
        if killWorkers > 0 { soak.killWorkersEvery = .milliseconds(Int64(killWorkers * 1000)) }
        soak.redisRestart = soak.redisRestart || redisRestart
        soak.redisLoss = soak.redisLoss || redisLoss
        soak.brokerFaults = soak.brokerFaults || brokerFaults
        if appleFaults > 0 { soak.appleFaultRate = appleFaults }
        if let appleFaultsFor {
            guard appleFaultsFor > 0, appleFaultsFor.isFinite else {
                throw ValidationError("--apple-faults-for takes a positive number of seconds, got \(appleFaultsFor)")
            }
            soak.appleFaultsFor = .milliseconds(Int64(appleFaultsFor * 1000))
        }
        guard backlog >= 0 else { throw ValidationError("--backlog takes a count, got \(backlog)") }
        soak.backlog = backlog
        if badInput > 0 { soak.badInputRate = badInput }

        var configuration = try stack.configuration()
        // The soak's counts are of the four workers' own work; reconcile has its own tests.
        configuration.reconcile = false
        // The mock keeps ~5 MiB per partition (D7): a purchase is a few KiB on each of several topics.
        configuration.partitions = max(configuration.partitions, (purchases + backlog) / 1_000 + 4)
        let runner = SoakRunner(configuration: soak, stack: configuration, logger: CLILogging.logger("iap.soak"))
        let report = try await runner.run { line in if !json { print(line) } }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(report)
        if let output { try data.write(to: URL(fileURLWithPath: output)) }
        print(json ? String(decoding: data, as: UTF8.self) : report.summary)
        if !report.passed { throw ExitCode(1) }
    }
}
