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
        let this = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        let builds = [
            BenchBuild(
                name: "baseline", binDirectory: baseline,
                sourceDirectory: baselineSource
                    ?? URL(fileURLWithPath: baseline).deletingLastPathComponent().deletingLastPathComponent().path),
            BenchBuild(
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

/// One side of a comparison: a build's executables and the source tree its runs start in.
struct BenchBuild: Sendable {
    var name: String
    var binDirectory: String
    var sourceDirectory: String

    /// Its bench command: `iap-dev bench e2e`, or `iap bench e2e` in builds from before iap-dev had it.
    func command() async throws -> [String] {
        let devTool = binDirectory + "/iap-dev"
        guard FileManager.default.isExecutableFile(atPath: devTool) else {
            return [binDirectory + "/iap", "bench", "e2e"]
        }
        let probe = try ChildProcess(
            name: "probe", executable: devTool, arguments: ["bench", "e2e", "--help"], output: .discard)
        return await probe.waitForExit() == 0 ? [devTool, "bench", "e2e"] : [binDirectory + "/iap", "bench", "e2e"]
    }

    /// One `bench e2e --json` run with the build's own pipeline file, its child processes' CPU
    /// sampled until it ends. A ``ChildProcess``, not Foundation's `Process`, whose `run()`
    /// crashes now and then in a process with many descriptors (swift-corelibs-foundation #5472).
    func run(_ arguments: [String]) async throws -> BenchRun {
        let command = try await self.command()
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
            guard let pid = Int32(entry), ProcessCPU.parent(of: pid) == parent,
                let used = ProcessCPU.seconds(pid: pid)
            else { continue }
            seconds[pid] = max(seconds[pid] ?? 0, used)
        }
    }
}

/// One run's figures.
struct BenchRun: Codable, Sendable {
    var purchasesPerSecond: Double
    var p50: Int64
    var p99: Int64
    /// The workers' and redis-server's CPU over the whole run, per purchase granted.
    var cpuMsPerPurchase: Double
    /// What the build measured itself between its first publish and its last grant, if it does.
    var ownWindowCPUMsPerPurchase: Double?
}

/// Two builds' runs side by side: each side's median and the ratio this build / baseline
/// (above 1 is faster for purchases/s, slower for latency, costlier for CPU).
struct BenchComparison: Encodable {
    var baseline: [BenchRun]
    var candidate: [BenchRun]

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func median(_ runs: [BenchRun]) -> BenchRun {
        let windows = runs.compactMap(\.ownWindowCPUMsPerPurchase)
        return BenchRun(
            purchasesPerSecond: median(runs.map(\.purchasesPerSecond)), p50: Int64(median(runs.map { Double($0.p50) })),
            p99: Int64(median(runs.map { Double($0.p99) })), cpuMsPerPurchase: median(runs.map(\.cpuMsPerPurchase)),
            ownWindowCPUMsPerPurchase: windows.count == runs.count && !runs.isEmpty ? median(windows) : nil)
    }

    struct Ratios: Encodable {
        var purchasesPerSecond: Double
        var p50: Double
        var p99: Double
        var cpuPerPurchase: Double
    }

    var ratios: Ratios {
        let (base, this) = (Self.median(baseline), Self.median(candidate))
        func ratio(_ new: Double, _ old: Double) -> Double { old == 0 ? 0 : new / old }
        return Ratios(
            purchasesPerSecond: ratio(this.purchasesPerSecond, base.purchasesPerSecond),
            p50: ratio(Double(this.p50), Double(base.p50)), p99: ratio(Double(this.p99), Double(base.p99)),
            cpuPerPurchase: ratio(this.cpuMsPerPurchase, base.cpuMsPerPurchase))
    }

    enum CodingKeys: String, CodingKey { case baseline, candidate, medians, ratios }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(baseline, forKey: .baseline)
        try container.encode(candidate, forKey: .candidate)
        try container.encode(
            ["baseline": Self.median(baseline), "candidate": Self.median(candidate)], forKey: .medians)
        try container.encode(ratios, forKey: .ratios)
    }

    /// One row: purchases/s, latency and CPU per purchase.
    static func line(_ label: String, _ run: BenchRun) -> String {
        label.padding(toLength: 12, withPad: " ", startingAt: 0)
            + String(
                format: "%7.0f purchases/s · p50 %6lld ms · p99 %6lld ms · CPU %.3f ms/purchase (workers + redis)",
                run.purchasesPerSecond, run.p50, run.p99, run.cpuMsPerPurchase)
            + (run.ownWindowCPUMsPerPurchase.map { String(format: " · %.3f in its own window", $0) } ?? "")
    }

    /// Every run, the medians and the ratios, as pasted into docs/performance.md.
    var table: String {
        var lines = ["", "runs:"]
        for (index, run) in baseline.enumerated() { lines.append(Self.line("baseline \(index + 1)", run)) }
        for (index, run) in candidate.enumerated() { lines.append(Self.line("this \(index + 1)", run)) }
        lines.append("medians:")
        lines.append(Self.line("baseline", Self.median(baseline)))
        lines.append(Self.line("this build", Self.median(candidate)))
        let ratios = self.ratios
        lines.append(
            String(
                format: "ratio this/baseline: purchases/s %.2f · p50 %.2f · p99 %.2f · CPU per purchase %.2f",
                ratios.purchasesPerSecond, ratios.p50, ratios.p99, ratios.cpuPerPurchase))
        return lines.joined(separator: "\n")
    }
}
