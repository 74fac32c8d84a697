import ArgumentParser
import Foundation

/// `iap-dev bench compare`: this build and another one, run alternately, each with its own `bench
/// e2e`, `stage` or `consume --json` (its own stack code, pipeline file and workers, so a build
/// from long ago runs as it shipped), and the ratio of their medians (issue 23). On a shared
/// machine only a ratio of two builds run side by side in one command says what a change cost.
struct BenchCompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "This build against another, alternating rounds of one bench; prints medians and ratios.",
        discussion: """
            The baseline is a release build of another commit (`make bench-compare BASE=<commit>` builds one in
            .build-base/). Each run is that build's `iap-dev bench <--bench> --json` (or `iap bench …` for builds
            from before iap-dev had it); the order flips every round and a pause lets the last run's processes go
            first.
            e2e: the build's own pipelines/iap.yaml (of --baseline-source). CPU per purchase is the workers' and
            redis-server's (the run's child processes) over the whole run, read from /proc every 250 ms, divided
            by the purchases granted: start-up and idle time included, the same way for both builds; a build that
            measures its own window (cpuMsPerPurchase) reports that too.
            stage: a no-op stage through the runtime, in the bench process. CPU per message is that process's and
            its redis-server's over the whole run (publishing the input included), read when it exits.
            consume: the build's consumer against kcat; CPU per message as the build reports it (builds from
            before session 30 consumed in the bench process and report none).
            """)

    @Option(help: "The bench each build runs: e2e, stage or consume.") var bench = ComparedBench.e2e
    @Option(help: "The baseline's executables (e.g. .build-base/<sha>/src/.build/release).") var baseline: String
    @Option(
        name: .customLong("baseline-source"),
        help: "The baseline's source tree, where its pipelines/ are (default: two levels above --baseline).")
    var baselineSource: String?
    @Option(help: "Runs of each build.") var rounds = 3
    @Option(help: "Purchases per run (e2e).") var purchases = 20_000
    @Option(help: "Publish rate per second; 0 publishes as fast as possible (e2e).") var rate = 0
    @Option(help: "Partitions of every topic on the embedded broker (e2e).") var partitions = 32
    @Option(help: "Messages per run (stage: 200000, consume: 1000000).") var messages: Int?
    @Option(name: .customLong("settle-seconds"), help: "Pause before each run after the first.")
    var settleSeconds = 5.0
    @Option(
        name: .customLong("run-timeout"),
        help: "Seconds after which a run is killed and listed as failed; the others still count.")
    var runTimeout = 900
    @Option(
        name: .customLong("this-build-arg"),
        help: "An argument for this build's runs only (repeatable), e.g. options the baseline does not know.")
    var thisBuildArguments: [String] = []
    @Option(
        name: .customLong("baseline-arg"),
        help: "An argument for the baseline's runs only (repeatable), e.g. to run both with one setting.")
    var baselineArguments: [String] = []
    @Flag(help: "Print the comparison as JSON.") var json = false

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard messages == nil || bench != .e2e else {
            throw ValidationError("--messages is for --bench stage and consume; e2e takes --purchases")
        }
    }

    func run() async throws {
        lineBufferedOutput()
        let this = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        let builds = [
            try await BenchBuild(
                name: "baseline", bench: bench, binDirectory: baseline,
                sourceDirectory: baselineSource
                    ?? URL(fileURLWithPath: baseline).deletingLastPathComponent().deletingLastPathComponent().path),
            try await BenchBuild(
                name: "this build", bench: bench, binDirectory: this,
                sourceDirectory: FileManager.default.currentDirectoryPath),
        ]
        let ownArguments = [baselineArguments, thisBuildArguments]
        var comparison = BenchComparison(bench: bench, baseline: [], candidate: [])
        for round in 1...rounds {
            // Index 0 is the baseline, 1 this build; the order flips every round.
            for side in round % 2 == 1 ? [0, 1] : [1, 0] {
                let build = builds[side]
                if !comparison.baseline.isEmpty || !comparison.candidate.isEmpty {
                    try await Task.sleep(for: .milliseconds(Int64(settleSeconds * 1000)))
                }
                if !json { print("round \(round) of \(rounds): \(build.name) (\(build.binDirectory))") }
                let arguments =
                    ["--json"] + bench.arguments(self, sourceDirectory: build.sourceDirectory) + ownArguments[side]
                do {
                    let run = try await build.run(arguments, timeout: .seconds(runTimeout))
                    if !json { print("  " + comparison.line(build.name, run)) }
                    if side == 0 {
                        comparison.baseline.append(run)
                    } else {
                        comparison.candidate.append(run)
                    }
                } catch {
                    if !json { print("  no result: \(error)") }
                    comparison.failures.append("\(build.name), round \(round): \(error)")
                }
            }
        }
        guard !comparison.baseline.isEmpty && !comparison.candidate.isEmpty else {
            print("no run of one build gave a result:\n" + comparison.failures.joined(separator: "\n"))
            throw ExitCode.failure
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(comparison), as: UTF8.self))
        } else {
            print(comparison.table)
        }
    }
}
