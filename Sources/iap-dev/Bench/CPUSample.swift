import LocalStack

/// CPU seconds of a stack's parts at one moment, from `/proc` (``ProcessCPU``): the workers'
/// processes, `redis-server` and this process, which hosts the broker and the simulator.
struct CPUSample {
    var workers: Double
    var redis: Double
    var bench: Double

    /// CPU milliseconds per purchase between two samples.
    struct PerPurchase {
        var workers: Double
        var redis: Double
        var bench: Double
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
