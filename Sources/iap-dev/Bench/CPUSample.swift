import LocalStack

/// CPU seconds of a stack's parts at one moment, from `/proc` (``ProcessCPU``): the workers'
/// processes, `redis-server` and this process, which hosts the broker and the simulator.
struct CPUSample {
    var workers: Double
    var redis: Double
    var bench: Double
    var byMember: [String: Double]

    /// CPU milliseconds per purchase between two samples.
    struct PerPurchase {
        var workers: Double
        var redis: Double
        var bench: Double
        /// Each worker's share of `workers`, by process name.
        var byMember: [String: Double]
    }

    init(_ stack: LocalStack) {
        (byMember, redis) = stack.processCPUSeconds()
        workers = byMember.values.reduce(0, +)
        bench = ProcessCPU.ownSeconds()
    }

    func since(_ earlier: CPUSample, per purchases: Int) -> PerPurchase {
        let scale = 1000 / Double(max(purchases, 1))
        return PerPurchase(
            workers: (workers - earlier.workers) * scale, redis: (redis - earlier.redis) * scale,
            bench: (bench - earlier.bench) * scale,
            byMember: byMember.merging(earlier.byMember.mapValues { -$0 }, uniquingKeysWith: +).mapValues { $0 * scale }
        )
    }
}
