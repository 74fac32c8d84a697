import Foundation

/// One run's figures, by ``BenchFigure/key``; a figure the build does not report is absent.
struct BenchRun: Encodable, Sendable {
    var values: [String: Double]

    func encode(to encoder: any Encoder) throws {
        try values.encode(to: encoder)
    }
}

/// Two builds' runs of one bench side by side: each side's median and the ratio this build /
/// baseline (above 1 is faster for a rate, dearer for CPU, slower for latency).
struct BenchComparison: Encodable {
    var bench: ComparedBench
    var baseline: [BenchRun]
    var candidate: [BenchRun]
    /// Runs that gave no figures (killed after the run timeout, or ended without a result).
    var failures: [String] = []

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Each figure's median over the runs; a figure some run lacks has none.
    func median(_ runs: [BenchRun]) -> BenchRun {
        var values: [String: Double] = [:]
        for figure in bench.figures {
            let found = runs.compactMap { $0.values[figure.key] }
            if !runs.isEmpty && found.count == runs.count { values[figure.key] = Self.median(found) }
        }
        return BenchRun(values: values)
    }

    /// this / baseline for each compared figure both sides report.
    var ratios: [String: Double] {
        let (base, this) = (median(baseline), median(candidate))
        var ratios: [String: Double] = [:]
        for figure in bench.figures where figure.ratioLabel != nil {
            guard let new = this.values[figure.key], let old = base.values[figure.key], old != 0 else { continue }
            ratios[figure.key] = new / old
        }
        return ratios
    }

    enum CodingKeys: String, CodingKey { case bench, baseline, candidate, failures, medians, ratios }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bench.rawValue, forKey: .bench)
        try container.encode(baseline, forKey: .baseline)
        try container.encode(candidate, forKey: .candidate)
        try container.encode(failures, forKey: .failures)
        try container.encode(["baseline": median(baseline), "candidate": median(candidate)], forKey: .medians)
        try container.encode(ratios, forKey: .ratios)
    }

    /// One row: the run's figures in the bench's order.
    func line(_ label: String, _ run: BenchRun) -> String {
        let figures = bench.figures.compactMap { figure in run.values[figure.key].map(figure.format) }
        return label.padding(toLength: 12, withPad: " ", startingAt: 0) + figures.joined(separator: " · ")
    }

    /// Every run, the medians and the ratios, as pasted into docs/performance.md.
    var table: String {
        var lines = ["", "runs:"]
        for (index, run) in baseline.enumerated() { lines.append(line("baseline \(index + 1)", run)) }
        for (index, run) in candidate.enumerated() { lines.append(line("this \(index + 1)", run)) }
        for failure in failures { lines.append("no result: " + failure) }
        lines.append("medians:")
        lines.append(line("baseline", median(baseline)))
        lines.append(line("this build", median(candidate)))
        let ratios = self.ratios
        let parts = bench.figures.compactMap { figure -> String? in
            guard let label = figure.ratioLabel else { return nil }
            return label + " " + (ratios[figure.key].map { String(format: "%.2f", $0) } ?? "—")
        }
        lines.append("ratio this/baseline: " + parts.joined(separator: " · "))
        return lines.joined(separator: "\n")
    }
}
