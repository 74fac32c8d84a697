public import Hosting
public import Kafka
public import Redis
public import ServiceLifecycle

/// Keeps `/readyz` honest: ready while Kafka answers metadata for the stage's inputs and Redis
/// answers PING; not ready (with the reason) otherwise, and from the moment shutdown begins so
/// traffic and rollouts stop counting on this replica. Also `iap-reconcile`'s, over the topics
/// it writes.
public struct DependencyProbe: Service {
    let admin: KafkaAdmin
    let redis: RedisClient
    let inputs: [String]
    let readiness: ReadinessFlag
    let interval: Duration

    /// - Parameter inputs: the topics that must exist.
    public init(
        admin: KafkaAdmin, redis: RedisClient, inputs: [String], readiness: ReadinessFlag,
        interval: Duration = .seconds(5)
    ) {
        self.admin = admin
        self.redis = redis
        self.inputs = inputs
        self.readiness = readiness
        self.interval = interval
    }

    public func run() async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            readiness.set(await check())
            // Wakes at once on SIGTERM: a sleeping probe must not hold the process (issue 12).
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        readiness.set(.notReady(reason: "shutting down"))
    }

    private func check() async -> Readiness {
        do {
            let counts = try await admin.partitionCounts(of: inputs, timeout: .seconds(3))
            if let missing = inputs.first(where: { counts[$0] == nil }) {
                return .notReady(reason: "Kafka topic \(missing) not found")
            }
        } catch {
            return .notReady(reason: "Kafka unreachable: \(error)")
        }
        do {
            guard try await redis.execute(PING()) == "PONG" else {
                return .notReady(reason: "Redis did not answer PONG")
            }
        } catch {
            return .notReady(reason: "Redis unreachable: \(error)")
        }
        return .ready
    }
}
