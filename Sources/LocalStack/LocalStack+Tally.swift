import Kafka
import LocalServices
import Pipeline
import Processes
import Redis
import Topology

extension LocalStack {
    /// Records on the dead-letter topics (`<topic>.dlq`) of what the pipeline's stages consume: each
    /// one a record an operator would have to replay.
    public func deadLettered() async throws -> Int {
        let pipeline = try PipelineFile.load(path: endpoints.pipeline)
        let admin = try KafkaAdmin(bootstrapServers: endpoints.kafka, logger: logger)
        let topics = Set(pipeline.stages.flatMap(\.consumedTopics).map(PipelineFile.dlqTopic(for:)))
        let counts = try await admin.partitionCounts(of: Array(topics))
        let partitions = counts.flatMap { topic, count in (0..<count).map { TopicPartition(topic, $0) } }
        return Int(try await admin.watermarks(partitions).values.reduce(0) { $0 + ($1.high - $1.low) })
    }

    /// Commands redis-server processed since it started, by command (`INFO commandstats`):
    /// the difference over a run, divided by its purchases, is what each purchase cost Redis,
    /// and of what.
    public func redisCommandsProcessed() async throws -> [String: Int] {
        let client = RedisClient(configuration: try redis.configuration(poolSize: 1))
        let info: String
        do {
            info = try await client.execute(INFO("commandstats"))
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        var calls: [String: Int] = [:]
        // cmdstat_get:calls=123,usec=456,...
        for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("cmdstat_") {
            let parts = line.dropFirst("cmdstat_".count).split(separator: ":", maxSplits: 1)
            guard parts.count == 2,
                let field = parts[1].split(separator: ",").first(where: { $0.hasPrefix("calls=") }),
                let count = Int(field.dropFirst("calls=".count))
            else { continue }
            calls[String(parts[0])] = count
        }
        return calls
    }
}

extension Dictionary where Key == String, Value == Int {
    /// Per-command counts of `self` minus `earlier` (commands only in `self` count from zero).
    public func subtracting(_ earlier: [String: Int]) -> [String: Int] {
        merging(earlier.mapValues { -$0 }, uniquingKeysWith: +).filter { $0.value != 0 }
    }
}

extension LocalStack {
    /// CPU seconds each member process (worker, gateway, API) by name and `redis-server` have
    /// used so far, from `/proc` (``ProcessCPU``): a benchmark's CPU per purchase, and which stage
    /// a change moved (issue 23). Members that run in process count nothing here.
    public func processCPUSeconds() -> (members: [String: Double], redis: Double) {
        var members: [String: Double] = [:]
        for name in processNames {
            if let used = process(name).flatMap({ ProcessCPU.seconds(pid: $0.pid) }) { members[name] = used }
        }
        return (members, redis.pid.flatMap(ProcessCPU.seconds(pid:)) ?? 0)
    }
}
