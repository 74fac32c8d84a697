import ArgumentParser
import Foundation
import LocalStack
import Processes

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
    /// process with many descriptors (swift-corelibs-foundation #5472).
    func run(_ arguments: [String]) async throws -> BenchRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("stdout").path
        let child = try ChildProcess(
            name: name, executable: command[0], arguments: Array(command.dropFirst()) + arguments,
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
        return bench.figures(result, childrenCPU: cpu.total, totalCPU: child.cpuSeconds)
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
