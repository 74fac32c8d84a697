import ArgumentParser
import Hosting
import Pipeline
import Redis
import Topology
import WorkerCommon
import Workers

/// `iap orders rebuild`: the order index in Redis, rebuilt from the compacted orders topic.
struct OrdersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "Maintain match's order index.",
        subcommands: [Rebuild.self]
    )

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild the Redis order index by replaying the compacted orders topic.",
            discussion: """
                Reads the topic up to its current end in a throwaway consumer group (match's offsets are \
                untouched, match may keep running), keeps the latest record per key as compaction does, and \
                writes every order the index does not hold; orders already in Redis are kept. Use it after \
                Redis lost its data or after orders expired. Exits non-zero when the topic cannot be read \
                to its end.
                """
        )

        @Option(name: .long, help: "Kafka bootstrap servers (default: KAFKA_BROKERS).")
        var brokers: String?

        @Option(name: .customLong("redis-url"), help: "Redis of the match stage (default: REDIS_URL).")
        var redisURL: String?

        @Option(name: .long, help: "Pipeline file naming the orders topic (default: IAP_PIPELINE).")
        var pipeline: String?

        @Option(name: .long, help: "The orders topic (default: the pipeline file's, match's orders input).")
        var topic: String?

        @Option(name: .customLong("idle-timeout"), help: "Seconds without a record before giving up.")
        var idleTimeout = 30

        @Flag(name: .long, help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let settings = try await CLISettings.load()
            let cluster = try settings.cluster(brokers: brokers)
            let topic = try topic ?? PipelineFile.load(path: settings.pipelinePath(pipeline)).topic(.orders)
            var redis = try RedisSettings(reader: settings.reader)
            if let redisURL { redis.url = redisURL }
            let client = RedisClient(configuration: try redis.configuration(), logger: CLILogging.logger("iap.redis"))
            let report: RebuildReport
            do {
                report = try await OrderIndexRebuild.run(
                    cluster: cluster, topic: topic, index: RedisOrderIndex(client: client),
                    logger: CLILogging.logger("iap.orders"), idleTimeout: .seconds(idleTimeout)
                )
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
            if json {
                try CLIInput.printJSONLine(report)
            } else {
                print(
                    """
                    read \(report.records) records of \(topic): \(report.values) orders (latest per key), \
                    \(report.deleted) deleted by tombstones, \(report.malformed) malformed skipped
                    wrote \(report.written) orders; \(report.alreadyPresent) were already in the index and kept
                    """)
            }
        }
    }
}
