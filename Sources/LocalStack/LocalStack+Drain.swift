import Kafka
import LocalServices
import Pipeline
import Redis
public import Topology

extension LocalStack {
    /// The stages this stack runs, from its pipeline file (`workers` may leave some out).
    public var runningStages: [StageSpec] {
        pipeline.stages.filter { configuration.workers.contains(StageName(rawValue: $0.name)?.executable ?? "") }
    }

    /// What each running stage still has to do, by stage name: records its group has not
    /// committed past on its inputs, plus retries and waits in its delay queue.
    public func backlog() async throws -> [String: Int64] {
        let admin = try KafkaAdmin(bootstrapServers: endpoints.kafka, logger: logger)
        let client = RedisClient(configuration: try redis.configuration(poolSize: 1))
        do {
            var backlog: [String: Int64] = [:]
            for stage in runningStages {
                let lag = try await admin.consumerLag(group: stage.consumerGroup, topics: stage.consumedTopics)
                let delayed = try await RedisRetryStore(client: client, stage: stage.name).depth()
                backlog[stage.name] = lag.reduce(0) { $0 + $1.lag } + Int64(delayed)
            }
            await client.shutdown()
            return backlog
        } catch {
            await client.shutdown()
            throw error
        }
    }

    /// Returns once no running stage has anything left to do (``backlog()`` all zero): whatever
    /// the pipeline was going to write has been written, a replayed duplicate included.
    /// A positive signal for tests that count outputs, instead of sleeping "long enough".
    public func waitUntilDrained(timeout: Duration = .seconds(180)) async throws {
        let deadline = ContinuousClock.now + timeout
        var last: [String: Int64] = [:]
        while true {
            last = try await backlog()
            if last.values.allSatisfy({ $0 == 0 }) { return }
            guard ContinuousClock.now < deadline else {
                throw LocalStackError("the stages did not drain within \(timeout): backlog \(last)")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
