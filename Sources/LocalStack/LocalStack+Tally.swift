import Kafka
import Pipeline
import Redis
import Topology

extension LocalStack {
    /// Records on the dead-letter topics (`<input>.dlq`) of the pipeline's stage inputs: each
    /// one a record an operator would have to replay.
    public func deadLettered() async throws -> Int {
        let pipeline = try PipelineFile.load(path: endpoints.pipeline)
        let admin = try KafkaAdmin(bootstrapServers: endpoints.kafka, logger: logger)
        let topics = Set(pipeline.stages.flatMap(\.inputs).map(WorkerConfiguration.dlqTopic(for:)))
        let counts = try await admin.partitionCounts(of: Array(topics))
        let partitions = counts.flatMap { topic, count in (0..<count).map { TopicPartition(topic, $0) } }
        return Int(try await admin.watermarks(partitions).values.reduce(0) { $0 + ($1.high - $1.low) })
    }

    /// Commands redis-server processed since it started (`INFO stats`): the difference over a
    /// run, divided by its purchases, is what each purchase cost Redis.
    public func redisCommandsProcessed() async throws -> Int {
        let client = RedisClient(configuration: try redis.configuration(poolSize: 1))
        let info: String
        do {
            info = try await client.send("INFO", "stats").string ?? ""
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_commands_processed:") }
        guard let value = line.flatMap({ Int($0.split(separator: ":").last ?? "") }) else {
            throw LocalStackError("redis-server's INFO stats has no total_commands_processed")
        }
        return value
    }
}
