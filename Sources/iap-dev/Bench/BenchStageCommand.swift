import ArgumentParser
import Basics
import Catalog
import Contracts
import Foundation
import Hosting
import Kafka
import LocalServices
import Pipeline
import Redis
import ServiceLifecycle
import Settings
import Synchronization

/// `iap-dev bench stage`: a no-op stage through the whole runtime path, with Redis idempotency on.
struct BenchStageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stage",
        abstract: "Messages/s through consume → handler → produce → offset store with the Redis idempotency guard."
    )

    @Option(help: "Messages to push through the stage.") var messages = 200_000
    @Option(help: "Records in flight per worker.") var inFlight = 256
    @Option(help: "Partitions of the input topic.") var partitions: Int32 = 12
    @Flag(inversion: .prefixedNo, help: "Use the Redis idempotency guard.") var idempotency = true
    @Option(name: .customLong("linger-ms"), help: "Producer linger.ms of the stage's producer.") var lingerMs = 5
    /// The workers' own default, so the bench measures the runtime as a worker runs it: 16
    /// connections (this bench's before session 32) cost ~1.5× the CPU per message of one or two,
    /// in round trips that each carried fewer commands.
    @Option(help: "Connections of the stage's Redis client (default: a worker's REDIS_POOL_SIZE default).")
    var redisConnections = (try? SettingsReader(environment: [:]).value(RedisKeys.poolSize)) ?? 2
    @Flag(help: "Print the result as JSON.") var json = false

    /// Produces one small record per input: the minimal real stage.
    struct NoOpStage: MessageHandler {
        let handled: Counter
        func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<Void> {
            Prepared((), idempotencyKey: "bench:\(message.record.partition):\(message.record.offset)")
        }
        func handle(_ work: Void, message: InboundMessage) async throws -> StageOutcome {
            handled.add()
            return .produce([
                KafkaRecord(
                    topic: "bench.out", key: message.record.key.map(Array.init), value: Array(message.record.value))
            ])
        }
    }

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    func run() async throws {
        let logger = CLILogging.logger("iap.bench")
        let redis = try await LocalRedisServer.start()
        defer { redis.stop() }
        let cluster = try KafkaMockCluster(brokers: 1, logger: logger)
        try await cluster.createTopic("bench.in", partitions: partitions)
        try await cluster.createTopic("bench.out", partitions: partitions)
        try await cluster.createTopic("bench.rejected", partitions: 1)

        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers)
        producerConfiguration.additionalProperties = ["queue.buffering.max.messages": "1000000"]
        producerConfiguration.linger = .milliseconds(lingerMs)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        let value = Array(#"{"schema":"bench.v1","payload":"0123456789012345678901234567890123456789"}"#.utf8)
        for start in stride(from: 0, to: messages, by: 20_000) {
            _ = try await producer.send(
                (start..<min(start + 20_000, messages)).map {
                    KafkaRecord(topic: "bench.in", key: Array("user-\($0 % 5000)".utf8), value: value)
                })
        }

        let client = RedisClient(
            configuration: try RedisConfiguration(url: redis.url, poolSize: redisConnections), logger: logger)
        let callsBefore = try await Self.redisCalls(client)
        let roundTripsBefore = client.traffic.roundTrips
        var worker = WorkerConfiguration(
            stage: "bench", consumerGroup: "bench", inputTopics: ["bench.in"], rejectTopic: "bench.rejected")
        worker.maxInFlight = inFlight
        let consumerConfiguration = KafkaConsumerConfiguration(
            bootstrapServers: cluster.bootstrapServers, groupId: "bench", topics: ["bench.in"])
        let handled = Counter()
        let runtime = WorkerRuntime(
            configuration: worker, handler: NoOpStage(handled: handled),
            consumer: try KafkaConsumer(configuration: consumerConfiguration, logger: logger), producer: producer,
            retries: RedisRetryStore(client: client, stage: "bench"),
            idempotency: idempotency ? RedisIdempotencyGuard(client: client, stage: "bench") : nil, logger: logger
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [.init(service: runtime)], logger: logger))
        let task = Task { try await group.run() }
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: logger)

        let clock = ContinuousClock()
        while handled.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let started = clock.now
        while handled.count < messages { try await Task.sleep(for: .milliseconds(5)) }
        let handledAt = clock.now
        // Done means stored and committed: wait until the group's lag is zero.
        while try await admin.consumerLag(group: "bench", topics: ["bench.in"]).contains(where: { $0.lag != 0 }) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let committedAt = clock.now
        let roundTripsPerMessage = Double(client.traffic.roundTrips - roundTripsBefore) / Double(messages)
        let callsAfter = try await Self.redisCalls(client)
        await group.triggerGracefulShutdown()
        try await task.value
        await producer.close()
        await client.shutdown()

        let seconds = (handledAt - started).seconds
        let result: [String: Any] = [
            "messages": messages, "inFlight": inFlight, "idempotency": idempotency,
            "messagesPerSecond": Int(Double(messages) / seconds), "handledSeconds": seconds,
            "committedSeconds": (committedAt - started).seconds,
            "redisCommandsPerMessage": Double(callsAfter - callsBefore - 1) / Double(messages),
            "redisConnections": redisConnections,
            "redisRoundTripsPerMessage": roundTripsPerMessage,
        ]
        if json {
            print(
                String(
                    decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self)
            )
        } else {
            print("no-op stage, \(messages) messages, \(inFlight) in flight, idempotency \(idempotency ? "on" : "off")")
            print(
                "throughput: \(result["messagesPerSecond"]!) msg/s (all handled in \(String(format: "%.2f", seconds)) s, committed after \(String(format: "%.2f", (committedAt - started).seconds)) s)"
            )
            print(
                "redis commands per message: \(String(format: "%.2f", result["redisCommandsPerMessage"] as! Double)) (server-side, counting those inside scripts)"
            )
            print(
                "redis round trips per message: \(String(format: "%.2f", roundTripsPerMessage)) over \(redisConnections) connection(s)"
            )
        }
    }

    /// Total commands the server has executed (`INFO commandstats`), to count round trips.
    static func redisCalls(_ client: RedisClient) async throws -> Int {
        let text = try await client.execute(INFO("commandstats"))
        return text.split(whereSeparator: \.isNewline).reduce(0) { total, line in
            guard let range = line.range(of: "calls=") else { return total }
            return total + (Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
    }
}
