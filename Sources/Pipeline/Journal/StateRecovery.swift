public import Logging

/// Rebuilds what a stage keeps in Redis from Kafka, before the worker takes work, whenever
/// Redis has no ``StateGeneration`` marker for the stage: on the first start against an empty
/// Redis, and after Redis lost its data.
public struct StateRecovery: Sendable {
    /// One thing to rebuild, e.g. the order index from `iap.orders`; returns a summary to log.
    public struct Step: Sendable {
        public var name: String
        public var run: @Sendable () async throws -> String

        public init(_ name: String, run: @escaping @Sendable () async throws -> String) {
            self.name = name
            self.run = run
        }
    }

    public let generation: StateGeneration
    /// In order: a later step may rely on an earlier one (waits restored after the orders
    /// they wait for).
    public let steps: [Step]

    public init(generation: StateGeneration, steps: [Step]) {
        self.generation = generation
        self.steps = steps
    }

    /// The generation the worker works under, after rebuilding when Redis had none. Replicas
    /// that start together may all rebuild: every step is idempotent, and they end up under
    /// one marker.
    public func prepare(logger: Logger) async throws -> String {
        if let current = try await generation.current() { return current }
        logger.warning(
            "Redis holds no state for this stage (no \(generation.key)): rebuilding it from Kafka before taking work")
        for step in steps {
            let summary = try await step.run()
            logger.warning("rebuilt \(step.name)", metadata: ["summary": "\(summary)"])
        }
        let established = try await generation.establish()
        logger.warning("state rebuilt; generation established", metadata: ["generation": "\(established)"])
        return established
    }
}

/// Thrown by the ``GenerationWatch`` when Redis lost the stage's state while the worker ran.
public struct StateLost: Error, CustomStringConvertible {
    public var key: String
    public var expected: String
    public var found: String?

    public var description: String {
        "Redis lost this stage's state (\(key) was \(expected), now \(found ?? "missing")): "
            + "stopping so that the next start rebuilds it from Kafka"
    }
}
