import Foundation
import LocalStack

/// What one end-to-end run measured, for comparing builds.
struct Measurement: Codable, Sendable {
    var purchasesPerSecond: Double
    var p50: Int64
    var p99: Int64
    var cpu: CPUSample.PerPurchase
}

/// CPU seconds of a stack's parts at one moment, from `/proc` (``ProcessCPU``): the workers'
/// processes, `redis-server` and this process, which hosts the broker and the simulator.
struct CPUSample {
    var workers: Double
    var redis: Double
    var bench: Double

    /// CPU milliseconds per purchase between two samples.
    struct PerPurchase: Codable, Sendable {
        var workers: Double
        var redis: Double
        var bench: Double
        /// What the pipeline itself costs: the workers and Redis (issue 23's figure).
        var pipeline: Double { workers + redis }
    }

    init(_ stack: LocalStack) {
        (workers, redis) = stack.processCPUSeconds()
        bench = ProcessCPU.ownSeconds()
    }

    func since(_ earlier: CPUSample, per purchases: Int) -> PerPurchase {
        let scale = 1000 / Double(max(purchases, 1))
        return PerPurchase(
            workers: (workers - earlier.workers) * scale, redis: (redis - earlier.redis) * scale,
            bench: (bench - earlier.bench) * scale)
    }
}

/// Two builds' runs side by side: each side's median and the ratio this build / baseline
/// (above 1 is faster for purchases/s, costlier for latency and CPU).
struct BenchComparison: Encodable {
    var baseline: [Measurement]
    var candidate: [Measurement]

    static func median(_ runs: [Measurement]) -> Measurement {
        func middle(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        return Measurement(
            purchasesPerSecond: middle(runs.map(\.purchasesPerSecond)), p50: Int64(middle(runs.map { Double($0.p50) })),
            p99: Int64(middle(runs.map { Double($0.p99) })),
            cpu: CPUSample.PerPurchase(
                workers: middle(runs.map(\.cpu.workers)), redis: middle(runs.map(\.cpu.redis)),
                bench: middle(runs.map(\.cpu.bench))))
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
            cpuPerPurchase: ratio(this.cpu.pipeline, base.cpu.pipeline))
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

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// One row: purchases/s, latency and CPU per purchase.
    static func line(_ label: String, _ run: Measurement) -> String {
        label.padding(toLength: 12, withPad: " ", startingAt: 0)
            + String(
                format: "%9.0f/s  p50 %6lld ms  p99 %6lld ms  CPU %.3f ms (workers %.3f + redis %.3f)  broker %.3f ms",
                run.purchasesPerSecond, run.p50, run.p99, run.cpu.pipeline, run.cpu.workers, run.cpu.redis,
                run.cpu.bench)
    }

    /// Every run, the medians and the ratios, as pasted into docs/performance.md.
    var table: String {
        var lines = ["", "runs (alternating):"]
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

    /// The `IAP_` settings a build's executables know, from its `iap config keys` (a baseline
    /// from before a setting refuses it as unknown); nil when that cannot be read.
    static func knownSettings(of binDirectory: String) -> Set<String>? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binDirectory + "/iap")
        process.arguments = ["config", "keys"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        let names = text.split(separator: "`").filter { $0.hasPrefix("IAP_") && !$0.contains(" ") }.map(String.init)
        return names.isEmpty ? nil : Set(names)
    }
}
