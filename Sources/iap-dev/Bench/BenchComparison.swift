import Foundation

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
