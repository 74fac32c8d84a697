import ArgumentParser
import Foundation
import LocalStack
import Processes

/// `iap-dev bench compare`: this build and another one's end to end, run alternately, each with
/// its own `bench e2e --json` (its own stack code, pipeline file and workers, so a build from
/// long ago runs as it shipped), and the ratio of their medians (issue 23). On a shared machine
/// only a ratio of two builds run side by side in one command says what a change cost.
struct BenchCompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "This build against another, end to end, alternating rounds; prints medians and ratios.",
        discussion: """
            The baseline is a release build of another commit (`make bench-compare BASE=<commit>` builds one in
            .build-base/). Each run is that build's `iap-dev bench e2e --json` (or `iap bench e2e` for builds from
            before iap-dev had it) given its own pipelines/iap.yaml (of --baseline-source); the order
            flips every round and a pause lets the last run's processes go first. CPU per purchase is the
            workers' and redis-server's (the run's child processes) over the whole run, read from /proc every
            250 ms, divided by the purchases granted: start-up and idle time included, the same way for both
            builds; a build that measures its own window (cpuMsPerPurchase) reports that too.
            """)

    @Option(help: "The baseline's executables (e.g. .build-base/<sha>/src/.build/release).") var baseline: String
    @Option(
        name: .customLong("baseline-source"),
        help: "The baseline's source tree, where its pipelines/ are (default: two levels above --baseline).")
    var baselineSource: String?
    @Option(help: "Runs of each build.") var rounds = 3
    @Option(help: "Purchases per run.") var purchases = 20_000
    @Option(help: "Publish rate per second; 0 publishes as fast as possible.") var rate = 0
    @Option(help: "Partitions of every topic on the embedded broker.") var partitions = 32
    @Option(name: .customLong("settle-seconds"), help: "Pause before each run after the first.")
    var settleSeconds = 5.0
    @Option(
        name: .customLong("this-build-arg"),
        help: "An argument for this build's runs only (repeatable), e.g. options the baseline does not know.")
    var thisBuildArguments: [String] = []
    @Flag(help: "Print the comparison as JSON.") var json = false

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    func run() async throws {
        lineBufferedOutput()
        let this = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        let builds = [
            try await BenchBuild(
                name: "baseline", binDirectory: baseline,
                sourceDirectory: baselineSource
                    ?? URL(fileURLWithPath: baseline).deletingLastPathComponent().deletingLastPathComponent().path),
            try await BenchBuild(
                name: "this build", binDirectory: this, sourceDirectory: FileManager.default.currentDirectoryPath),
        ]
        let arguments = ["--json", "--purchases", "\(purchases)", "--rate", "\(rate)", "--partitions", "\(partitions)"]
        var runs: [String: [BenchRun]] = [:]
        for round in 1...rounds {
            for build in round % 2 == 1 ? builds : builds.reversed() {
                if !runs.isEmpty { try await Task.sleep(for: .milliseconds(Int64(settleSeconds * 1000))) }
                if !json { print("round \(round) of \(rounds): \(build.name) (\(build.binDirectory))") }
                let run = try await build.run(
                    build.name == "baseline" ? arguments : arguments + thisBuildArguments)
                if !json { print("  " + BenchComparison.line(build.name, run)) }
                runs[build.name, default: []].append(run)
            }
        }
        let comparison = BenchComparison(baseline: runs["baseline"] ?? [], candidate: runs["this build"] ?? [])
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(comparison), as: UTF8.self))
        } else {
            print(comparison.table)
        }
    }
}

/// One side of a comparison: a build's executables, its bench command and its source tree.
struct BenchBuild: Sendable {
    var name: String
    var binDirectory: String
    var sourceDirectory: String
    /// `iap-dev bench e2e`, or `iap bench e2e` in builds from before iap-dev had it.
    var command: [String]

    /// Finds the build's bench command once, for all its runs.
    init(name: String, binDirectory: String, sourceDirectory: String) async throws {
        self.name = name
        self.binDirectory = binDirectory
        self.sourceDirectory = sourceDirectory
        let devTool = binDirectory + "/iap-dev"
        var hasBench = false
        if FileManager.default.isExecutableFile(atPath: devTool) {
            let probe = try ChildProcess(
                name: "probe", executable: devTool, arguments: ["bench", "e2e", "--help"], output: .discard)
            hasBench = await probe.waitForExit() == 0
        }
        command = hasBench ? [devTool, "bench", "e2e"] : [binDirectory + "/iap", "bench", "e2e"]
    }

    /// One `bench e2e --json` run with the build's own pipeline file, its child processes' CPU
    /// sampled until it ends. A ``ChildProcess``, not Foundation's `Process`, whose `run()`
    /// crashes now and then in a process with many descriptors (swift-corelibs-foundation #5472).
    func run(_ arguments: [String]) async throws -> BenchRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("stdout").path
        let child = try ChildProcess(
            name: name, executable: command[0],
            arguments: Array(command.dropFirst()) + ["--pipeline", sourceDirectory + "/pipelines/iap.yaml"] + arguments,
            output: .files(output: output, errors: directory.appendingPathComponent("stderr").path))
        var children = ChildCPU(parent: child.pid)
        let sampling = Task {
            while !Task.isCancelled {
                children.sample()
                try? await Task.sleep(for: .milliseconds(250))
            }
            return children
        }
        let status = await child.waitForExit()
        sampling.cancel()
        let cpu = await sampling.value
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            throw ValidationError("\(name): \(command.joined(separator: " ")) exited \(status) without a result")
        }
        let granted = (result["granted"] as? NSNumber)?.intValue ?? 0
        let latency = result["latencyMs"] as? [String: Any]
        let own = result["cpuMsPerPurchase"] as? [String: Any]
        let window = own.map { own in
            ((own["workers"] as? NSNumber)?.doubleValue ?? 0) + ((own["redis"] as? NSNumber)?.doubleValue ?? 0)
        }
        return BenchRun(
            purchasesPerSecond: (result["purchasesPerSecond"] as? NSNumber)?.doubleValue ?? 0,
            p50: (latency?["p50"] as? NSNumber)?.int64Value ?? -1,
            p99: (latency?["p99"] as? NSNumber)?.int64Value ?? -1,
            cpuMsPerPurchase: cpu.total * 1000 / Double(max(granted, 1)), ownWindowCPUMsPerPurchase: window)
    }
}

/// The CPU seconds of a process's children (a bench run's workers and redis-server), each
/// child's last reading kept, so one that exited still counts what it used.
struct ChildCPU: Sendable {
    let parent: Int32
    private var seconds: [Int32: Double] = [:]

    init(parent: Int32) {
        self.parent = parent
    }

    var total: Double { seconds.values.reduce(0, +) }

    mutating func sample() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
        for entry in entries {
            guard let pid = Int32(entry), let stat = ProcessCPU.stat(pid: pid), stat.parent == parent else { continue }
            seconds[pid] = max(seconds[pid] ?? 0, stat.seconds)
        }
    }
}
