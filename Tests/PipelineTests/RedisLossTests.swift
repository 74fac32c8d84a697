import Foundation
import Hosting
import Kafka
import LocalServices
import Logging
import Pipeline
import Redis
import Synchronization
import TestSupport
import Testing
import Topology

/// Redis forgetting everything (`FLUSHALL`: a failover to an asynchronously replicated replica, a
/// restart without persistence) while records wait and retry loses none of them: the deliveries
/// are journaled in Kafka, the worker notices the lost state and stops, and the next start
/// rebuilds the delay queue from the journal before it takes work (decision D19).
@Suite(.timeLimit(.minutes(3))) struct RedisLossTests {
    @Test func waitingAndRetryingRecordsSurviveRedisLosingItsData() async throws {
        try await withRedisServer { redis in
            let cluster = try await TestKafka.cluster(topics: [
                "in": 4, "out": 2, "rejected": 1, "in.dlq": 1, "test-stage.delayed": 4,
            ])
            let producer = try TestKafka.producer(cluster)
            let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
            let stage = StageSpec(
                name: "test", consumerGroup: "test-stage", inputs: ["in"], outputs: ["out"], rejectTopic: "rejected",
                retry: RetryPolicy(
                    initialBackoff: .milliseconds(100), maxBackoff: .seconds(1), multiplier: 2, jitter: 0,
                    maxAttempts: 2)
            )
            let settings = try Self.settings(cluster: cluster, redis: redis)

            // First worker: every record ends up waiting (for the gate) or retrying (after 4 s).
            let first = TestStage(output: "out")
            let firstRun = Task {
                try await Worker(stage: stage, handler: first, settings: settings, logger: TestKafka.logger).run {
                    await Task.never()
                }
            }
            let waits = (0..<40).map { (id: "w\($0)", action: "wait") }
            let retries = (0..<40).map { (id: "r\($0)", action: "retry") }
            try await TestEvents.publish(producer, to: "in", waits + retries, extra: ",\"retryAfterMs\":4000")
            let partitions = (0..<4).map { TopicPartition("in", Int32($0)) }
            _ = try await eventually(
                "every record waited or retried, and its offset was committed", timeout: .seconds(60)
            ) {
                let committed = try await admin.committedOffsets(group: "test-stage", partitions: partitions)
                let ends = try await admin.highWatermarks(partitions)
                let handled = Set(first.observations.handled.map(\.id))
                return handled.count == 80
                    && partitions.allSatisfy({
                        committed[$0] != nil && committed[$0]! >= 1 && committed[$0] == ends[$0]
                    })
                    ? true : nil
            }
            let firstSeen = Dictionary(first.observations.handled.map { ($0.id, $0.at) }) { earlier, _ in earlier }

            // Redis forgets everything: the delay queue, the waits' markers, the generation.
            try await withClient(try redis.configuration()) { client in _ = try await client.send("FLUSHALL") }
            let stopped = await firstRun.result
            #expect(throws: StateLost.self, "the worker noticed the lost state and stopped") { try stopped.get() }

            // The next start rebuilds from the journal; the gate is open now.
            let second = TestStage(output: "out")
            second.gate.open()
            let secondRun = Task {
                try await Worker(stage: stage, handler: second, settings: settings, logger: TestKafka.logger).run {
                    await Task.never()
                }
            }
            let output = try ConsumerProbe(cluster, group: "check", topics: ["out"])
            let produced = try await output.waitForMessages(80, timeout: .seconds(60))
            let ids = Set(produced.map { String(decoding: $0.key ?? [], as: UTF8.self) })
            #expect(ids == Set((waits + retries).map(\.id)), "nothing lost")

            for handled in second.observations.handled {
                let firstTime = try #require(firstSeen[handled.id])
                if handled.id.hasPrefix("r") {
                    #expect(handled.attempt == 1)
                    #expect(
                        handled.at - firstTime >= .seconds(4),
                        "\(handled.id) was retried \(handled.at - firstTime) after its first try, asked for 4 s")
                } else {
                    #expect(handled.waitingSince != nil, "\(handled.id) carries when it began to wait")
                    #expect(handled.attempt == 0, "a wait is not charged to the retry budget")
                }
            }
            secondRun.cancel()
            _ = await secondRun.result
            await output.close()
            await producer.close()
        }
    }

    static func settings(cluster: KafkaMockCluster, redis: LocalRedisServer) throws -> WorkerSettings {
        var settings = try WorkerSettings(stage: "test", environment: [:])
        settings.kafka.bootstrapServers = cluster.bootstrapServers
        settings.redisURL = redis.url
        settings.opsHost = "127.0.0.1"
        settings.opsPort = 0
        settings.generationCheckInterval = .milliseconds(200)
        settings.shutdownGracePeriod = .seconds(10)
        settings.kafka.properties = [
            "session.timeout.ms": "6000", "heartbeat.interval.ms": "500", "auto.commit.interval.ms": "200",
        ]
        return settings
    }
}

extension Task where Success == Never, Failure == Never {
    /// Suspends until cancelled.
    static func never() async {
        let stream = AsyncStream<Void> { _ in }
        for await _ in stream {}
    }
}
