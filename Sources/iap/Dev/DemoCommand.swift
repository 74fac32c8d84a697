import ArgumentParser
import Foundation
import Kafka
import Logging
import Pipeline
import Redis
import ServiceLifecycle

/// `iap demo`: the runtime end to end on the embedded stack, with live progress.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a sample stage on the embedded broker and a local redis-server, and show messages flowing.",
        discussion: """
            Publishes a mixed batch (valid, flaky-then-retried, duplicated, malformed, unknown-schema
            events) and exits 0 once every event reached its expected end state: enriched exactly once,
            or rejected with the right reason code.
            """
    )

    @Option(help: "Events to publish.") var events = 2_000
    @Option(help: "Seconds to wait for every event to settle.") var timeout = 120.0
    @Flag(help: "Print the summary as JSON.") var json = false

    func run() async throws {
        let logger = CLILogging.logger("iap.demo")
        let redis = try await LocalRedisServer.start()
        defer { redis.stop() }
        let cluster = try KafkaMockCluster(brokers: 1, logger: logger)
        for (topic, partitions) in ["demo.events": 6, DemoStage.outputTopic: 3, "demo.rejected": 1, "demo.events.dlq": 1] as [String: Int32] {
            try cluster.createTopic(topic, partitions: partitions)
        }
        say("embedded Kafka (mock cluster): \(cluster.bootstrapServers)\nredis-server: \(redis.url)")

        let batch = DemoBatch(count: events)
        let client = RedisClient(configuration: try RedisConfiguration(url: redis.url), logger: logger)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers), logger: logger)
        var worker = WorkerConfiguration(stage: "enrich", consumerGroup: "demo-enrich", inputTopics: ["demo.events"], rejectTopic: "demo.rejected")
        worker.retryPolicy = RetryPolicy(initialBackoff: .milliseconds(200), maxBackoff: .seconds(2), maxAttempts: 5)
        var consumerConfiguration = KafkaConsumerConfiguration(bootstrapServers: cluster.bootstrapServers, groupId: worker.consumerGroup, topics: worker.inputTopics)
        consumerConfiguration.sessionTimeout = .seconds(6)
        consumerConfiguration.heartbeatInterval = .milliseconds(500)
        let runtime = WorkerRuntime(
            configuration: worker, handler: DemoStage(),
            consumer: try KafkaConsumer(configuration: consumerConfiguration, logger: logger), producer: producer,
            retries: RedisRetryStore(client: client, stage: "enrich"), idempotency: RedisIdempotencyGuard(client: client, stage: "enrich"),
            logger: logger
        )
        let promoter = RetryPromoter(stage: "enrich", store: RedisRetryStore(client: client, stage: "enrich"), producer: producer, logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: promoter), .init(service: runtime)], logger: logger))
        let workerTask = Task { try await group.run() }

        let observer = try TopicObserver(bootstrap: cluster.bootstrapServers, topics: [DemoStage.outputTopic, "demo.rejected"], logger: logger)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: logger)
        _ = try await producer.send(batch.records)
        say("published \(batch.records.count) events: \(batch.describe())")

        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(timeout)
        var summary = DemoSummary()
        while clock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            summary = batch.summarize(observer.records, lag: try await admin.consumerLag(group: worker.consumerGroup, topics: worker.inputTopics))
            if !json { print(summary.progressLine) }
            if summary.settled { break }
        }
        await group.triggerGracefulShutdown()
        try await workerTask.value
        await observer.close()
        await producer.close()
        await client.shutdown()
        say(summary.report(json: json))
        if !summary.correct { throw ExitCode.failure }
    }

    private func say(_ text: String) {
        if !json { print(text) }
    }
}
