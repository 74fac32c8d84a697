import ArgumentParser
import Foundation

/// What `iap-dev bench compare` runs in each build (issue 23 item 1): each build's own `bench
/// <name> --json`, and the figures read from a run.
enum ComparedBench: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// The purchase path end to end with the build's workers as processes (`bench e2e`).
    case e2e
    /// A no-op stage through the build's runtime, in one process (`bench stage`).
    case stage
    /// The build's consumer against kcat on the same topic (`bench consume`).
    case consume

    /// The figures of a run, in the order a run's line prints them. Ratios are this build's median
    /// over the baseline's: above 1 is faster for a rate, dearer for CPU, slower for latency.
    var figures: [BenchFigure] {
        switch self {
        case .e2e:
            [
                BenchFigure("purchasesPerSecond", ratio: "purchases/s") { String(format: "%7.0f purchases/s", $0) },
                BenchFigure("p50", ratio: "p50") { String(format: "p50 %6.0f ms", $0) },
                BenchFigure("p99", ratio: "p99") { String(format: "p99 %6.0f ms", $0) },
                BenchFigure("cpuMsPerPurchase", ratio: "CPU per purchase") {
                    String(format: "CPU %.3f ms/purchase (workers + redis)", $0)
                },
                BenchFigure("ownWindowCPUMsPerPurchase", ratio: nil) { String(format: "%.3f in its own window", $0) },
            ]
        case .stage:
            [
                BenchFigure("messagesPerSecond", ratio: "msg/s") { String(format: "%7.0f msg/s", $0) },
                BenchFigure("cpuMicrosecondsPerMessage", ratio: "CPU per message") {
                    String(format: "CPU %.1f µs/msg (the bench process and its redis-server)", $0)
                },
                BenchFigure("redisCommandsPerMessage", ratio: "Redis commands per message") {
                    String(format: "%.2f Redis commands/msg", $0)
                },
                // Builds before session 32 report neither.
                BenchFigure("redisRoundTripsPerMessage", ratio: "Redis round trips per message") {
                    String(format: "in %.2f round trips", $0)
                },
                BenchFigure("redisConnections", ratio: nil) { String(format: "over %.0f connections", $0) },
            ]
        case .consume:
            [
                BenchFigure("messagesPerSecond", ratio: "msg/s") { String(format: "%8.0f msg/s", $0) },
                BenchFigure("kcatRatio", ratio: "rate against kcat") { String(format: "%.3f× kcat's rate", $0) },
                BenchFigure("cpuMicrosecondsPerMessage", ratio: "CPU per message") {
                    String(format: "CPU %.3f µs/msg", $0)
                },
            ]
        }
    }

    /// The arguments of one run besides `--json` (and its side's `--baseline-arg`s or `--this-build-arg`s).
    func arguments(_ options: BenchCompareCommand, sourceDirectory: String) -> [String] {
        switch self {
        case .e2e:
            [
                "--pipeline", sourceDirectory + "/pipelines/iap.yaml", "--purchases", "\(options.purchases)",
                "--rate", "\(options.rate)", "--partitions", "\(options.partitions)",
            ]
        // Each build's own default, pinned, so a build whose default differs runs the same work.
        case .stage:
            ["--messages", "\(options.messages ?? 200_000)"]
        case .consume:
            ["--messages", "\(options.messages ?? 1_000_000)"]
        }
    }

    /// A run's figures from its JSON result and the CPU its processes used.
    /// - Parameters:
    ///   - childrenCPU: the run's child processes (an e2e run's workers and redis-server),
    ///     sampled from `/proc` while it ran.
    ///   - totalCPU: the run's process and every child it waited for, at its exit.
    func figures(_ result: [String: Any], childrenCPU: Double, totalCPU: Double?) -> BenchRun {
        func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
        var values: [String: Double] = [:]
        switch self {
        case .e2e:
            let granted = max(number(result["granted"]) ?? 0, 1)
            let latency = result["latencyMs"] as? [String: Any]
            values["purchasesPerSecond"] = number(result["purchasesPerSecond"]) ?? 0
            values["p50"] = number(latency?["p50"]) ?? -1
            values["p99"] = number(latency?["p99"]) ?? -1
            values["cpuMsPerPurchase"] = childrenCPU * 1000 / granted
            if let own = result["cpuMsPerPurchase"] as? [String: Any] {
                values["ownWindowCPUMsPerPurchase"] = (number(own["workers"]) ?? 0) + (number(own["redis"]) ?? 0)
            }
        case .stage:
            let messages = max(number(result["messages"]) ?? 0, 1)
            values["messagesPerSecond"] = number(result["messagesPerSecond"]) ?? 0
            values["redisCommandsPerMessage"] = number(result["redisCommandsPerMessage"])
            values["redisRoundTripsPerMessage"] = number(result["redisRoundTripsPerMessage"])
            values["redisConnections"] = number(result["redisConnections"])
            // Publishing the input, the broker, the stage and Redis: the same work in both builds.
            values["cpuMicrosecondsPerMessage"] = totalCPU.map { $0 * 1_000_000 / messages }
        case .consume:
            // Builds before session 30 consumed in the bench process and report no CPU.
            values["messagesPerSecond"] = number(result["swiftPerSecond"]) ?? 0
            values["kcatRatio"] = number(result["ratio"])
            values["cpuMicrosecondsPerMessage"] = number(result["swiftCPUMicrosecondsPerMessage"])
        }
        return BenchRun(values: values)
    }
}

/// One figure of a comparison: its key in a run's JSON, its name in the ratio line (nil: shown,
/// not compared), and how a run's line prints it.
struct BenchFigure: Sendable {
    var key: String
    var ratioLabel: String?
    var format: @Sendable (Double) -> String

    init(_ key: String, ratio: String?, format: @escaping @Sendable (Double) -> String) {
        self.key = key
        self.ratioLabel = ratio
        self.format = format
    }
}
