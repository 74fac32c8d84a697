import AsyncHTTPClient
import Hosting
import Kafka
import LocalServices
import Logging
import NIOCore
import NIOHTTP1
import Pipeline
import Redis
import Synchronization
import TestSupport
import Testing
import Topology

/// SIGTERM's path through a whole worker (ops server, probe, lag reporter, generation watch,
/// retry promoter, runtime): the process ends as soon as the drain does.
@Suite(.timeLimit(.minutes(3))) struct WorkerShutdownTests {
    /// Every periodic service sleeps far longer than the bound (the readiness probe, the lag
    /// reporter and generation watch 120 s, the grace period 60 s), so a service that sleeps
    /// through shutdown instead of waking fails this test. Alone it exits in 18–127 ms; under the
    /// whole parallel suite on two cores it took up to 4 s (a readiness check in flight finishes
    /// its Kafka metadata call), hence a bound of 30 s: half the shortest sleep it must cut short.
    @Test func aWorkerWithNothingInFlightExitsPromptly() async throws {
        try await withRedisDatabase { redis in
            let fixture = try await Fixture(redisURL: redis.url)
            let worker = try fixture.worker(TestStage(output: "out"))
            let stop = AsyncStream<Void>.makeStream()
            let running = Task { try await worker.run { for await _ in stop.stream { return } } }
            try await fixture.waitUntilReady()
            try await eventually("partitions assigned") {
                fixture.log.lines.contains("partitions assigned") ? true : nil
            }

            let clock = ContinuousClock()
            let stopping = clock.now
            stop.continuation.finish()
            try await running.value
            let took = clock.now - stopping
            #expect(took < .seconds(30), "an idle worker took \(took) to exit")
            #expect(fixture.log.lines.contains("worker stopped"))
            await fixture.close()
        }
    }

    /// A rebalance that arrives while the worker drains (its runtime no longer reads consumer
    /// events) used to hold the exit for the consumer's whole revocation timeout, with no
    /// "worker stopped" line before the supervisor's kill. Now the drained worker commits,
    /// leaves and stops as soon as its last record is done.
    @Test func aWorkerRebalancedWhileDrainingCommitsAndStops() async throws {
        try await withRedisDatabase { redis in
            let fixture = try await Fixture(redisURL: redis.url)
            let stage = TestStage(output: "out")
            let worker = try fixture.worker(stage)
            let stop = AsyncStream<Void>.makeStream()
            let running = Task { try await worker.run { for await _ in stop.stream { return } } }
            try await fixture.waitUntilReady()

            try await TestEvents.publish(fixture.producer, to: "in", [(id: "slow", action: "block")])
            try await eventually("the record is running") { stage.observations.handled.isEmpty ? nil : true }
            stop.continuation.finish()
            try await eventually("draining") { fixture.log.lines.contains("draining") ? true : nil }

            // Another member joins while the record still runs: the worker's partitions are revoked.
            let newcomer = try ConsumerProbe(fixture.cluster, group: "test-stage", topics: ["in"])
            try await eventually("the revocation reached the draining worker") {
                fixture.log.lines.contains("partitions revoked") ? true : nil
            }

            let clock = ContinuousClock()
            let released = clock.now
            stage.gate.open()
            try await running.value
            let took = clock.now - released
            #expect(took < .seconds(10), "the drained worker took \(took) to stop (revocation timeout 20 s)")
            #expect(fixture.log.lines.contains("worker stopped"))

            let admin = try KafkaAdmin(bootstrapServers: fixture.cluster.bootstrapServers, logger: TestKafka.logger)
            let lag = try await admin.consumerLag(group: "test-stage", topics: ["in"])
            let unread = lag.filter { $0.highWatermark > ($0.committedOffset ?? 0) }.map(\.partition)
            if !unread.isEmpty {
                // The mock broker waits for a rebalance's members for the session timeout less a
                // second (6 s here; a real broker waits max.poll.interval.ms), and the drained worker
                // rejoins only after it closed. On a loaded machine that took longer: the broker
                // evicted the worker and refused its commit (an unknown member or generation, or a
                // rebalance still in progress), or librdkafka reported the assignment lost and so
                // did not commit. Then, and only then, the record is not committed but redelivered
                // to the partition's next owner; a worker that never tried to commit fails here.
                let worker = fixture.log.detailedLines
                let refused = worker.contains { $0.hasPrefix("commit on revoke") }
                let lost = worker.contains { $0.hasPrefix("partitions revoked") && $0.contains("lost=true") }
                #expect(
                    refused || lost,
                    "the drained record was neither committed (\(lag)) nor refused by the broker: \(worker)")
                let redelivered = try await newcomer.waitForMessages(1, timeout: .seconds(60))
                #expect(redelivered.map(\.partition) == unread, "the record reached the newcomer")
            }
            await newcomer.close()
            await fixture.close()
        }
    }

    /// A mock cluster, a producer, worker settings whose periodic services all sleep for
    /// minutes, and the worker's log lines.
    final class Fixture: Sendable {
        let cluster: KafkaMockCluster
        let producer: KafkaProducer
        let log = LogCapture()
        private let port = Mutex<Int?>(nil)
        private let settings: WorkerSettings

        init(redisURL: String) async throws {
            cluster = try await TestKafka.cluster(topics: [
                "in": 2, "out": 2, "rejected": 1, "in.dlq": 1, "test-stage.delayed": 2,
            ])
            producer = try TestKafka.producer(cluster)
            var settings = try WorkerSettings(stage: "test", environment: [:])
            settings.kafka.bootstrapServers = cluster.bootstrapServers
            settings.redisURL = redisURL
            settings.opsHost = "127.0.0.1"
            settings.opsPort = 0
            settings.shutdownGracePeriod = .seconds(60)
            settings.lagInterval = .seconds(120)
            settings.generationCheckInterval = .seconds(120)
            settings.readinessInterval = .seconds(120)
            settings.kafka.properties = [
                "session.timeout.ms": "6000", "heartbeat.interval.ms": "500", "auto.commit.interval.ms": "200",
            ]
            self.settings = settings
        }

        func worker(_ stage: TestStage) throws -> Worker<TestStage> {
            let spec = StageSpec(
                name: "test", consumerGroup: "test-stage", inputs: ["in"], outputs: ["out"], rejectTopic: "rejected")
            let logger = log.logger(label: "test.worker", level: .info)
            return try Worker(stage: spec, handler: stage, settings: settings, logger: logger) { [self] bound in
                self.port.withLock { $0 = bound }
            }
        }

        func waitUntilReady() async throws {
            let base = try await eventually("ops port") { port.withLock { $0 }.map { "http://127.0.0.1:\($0)" } }
            try await eventually("ready") {
                let response = try? await HTTPClient.shared.execute(
                    HTTPClientRequest(url: base + "/readyz"), timeout: .seconds(5))
                return response?.status.code == 200 ? true : nil
            }
        }

        func close() async {
            await producer.close()
        }
    }
}
