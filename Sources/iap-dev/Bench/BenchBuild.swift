import ArgumentParser
import Foundation
import LocalStack
import Processes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One side of a comparison: a build's executables, its bench command and its source tree.
struct BenchBuild: Sendable {
    var name: String
    var bench: ComparedBench
    var binDirectory: String
    var sourceDirectory: String
    /// `iap-dev bench <bench>`, or `iap bench <bench>` in builds from before iap-dev had it.
    var command: [String]

    /// Finds the build's bench command once, for all its runs.
    init(name: String, bench: ComparedBench, binDirectory: String, sourceDirectory: String) async throws {
        self.name = name
        self.bench = bench
        self.binDirectory = binDirectory
        self.sourceDirectory = sourceDirectory
        let devTool = binDirectory + "/iap-dev"
        var hasBench = false
        if FileManager.default.isExecutableFile(atPath: devTool) {
            let probe = try ChildProcess(
                name: "probe", executable: devTool, arguments: ["bench", bench.rawValue, "--help"], output: .discard)
            hasBench = await probe.waitForExit() == 0
        }
        command = [hasBench ? devTool : binDirectory + "/iap", "bench", bench.rawValue]
    }

    /// One `bench <bench> --json` run, its child processes' CPU sampled until it ends. A
    /// ``ChildProcess``, not Foundation's `Process`, whose `run()` crashes now and then in a
    /// process with many descriptors (swift-corelibs-foundation #5472). A run still going after
    /// `timeout` is killed with the processes it started (an old build's harness can hang: 46ff1ae's
    /// `bench stage` did), and fails like a run that ended without a result.
    func run(_ arguments: [String], timeout: Duration) async throws(BenchRunFailure) -> BenchRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-compare-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("stdout").path
        let errors = directory.appendingPathComponent("stderr").path
        let child: ChildProcess
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            child = try ChildProcess(
                name: name, executable: command[0], arguments: Array(command.dropFirst()) + arguments,
                output: .files(output: output, errors: errors))
        } catch {
            throw BenchRunFailure("could not start \(command.joined(separator: " ")): \(error)")
        }
        var children = ChildCPU(parent: child.pid)
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        while child.isRunning {
            children.sample()
            if ContinuousClock.now >= deadline {
                timedOut = true
                children.killAll()
                child.crash()
                break
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        let status = await child.waitForExit()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard !timedOut, status == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let result = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        else {
            let tail = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").suffix(300)
            throw BenchRunFailure(
                (timedOut ? "killed after \(timeout)" : "exited with status \(status) without a result")
                    + (tail.isEmpty ? "" : ": …" + tail.replacingOccurrences(of: "\n", with: " ")))
        }
        return bench.figures(result, childrenCPU: children.total, totalCPU: child.cpuSeconds)
    }
}

/// Why a run gave no figures; the comparison lists it and goes on with the other runs.
struct BenchRunFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
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

    /// SIGKILL to every child seen, so a killed run leaves no worker or redis-server behind.
    func killAll() {
        for pid in seconds.keys { kill(pid, SIGKILL) }
    }

    mutating func sample() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
        for entry in entries {
            guard let pid = Int32(entry), let stat = ProcessCPU.stat(pid: pid), stat.parent == parent else { continue }
            seconds[pid] = max(seconds[pid] ?? 0, stat.seconds)
        }
    }
}
