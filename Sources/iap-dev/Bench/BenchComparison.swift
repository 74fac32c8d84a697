import Foundation
import LocalStack

/// What one end-to-end run measured.
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
