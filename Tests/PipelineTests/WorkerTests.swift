import AsyncHTTPClient
import Foundation
import Hosting
import Kafka
import LocalServices
import Logging
import NIOCore
import NIOHTTP1
import Pipeline
import Redis
import Settings
import Synchronization
import TestSupport
import Testing
import Topology

@Suite(.timeLimit(.minutes(2))) struct WorkerTests {
    /// One request. Inside `eventually` a failed one counts as "not yet": with the whole unit set
    /// starting at once on two cores, a local answer can miss a deadline.
    private func get(_ client: HTTPClient, _ url: String) async throws -> (status: UInt, body: String) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, String(buffer: body))
    }

    /// A test worker's settings: the cluster, Redis, ops on any free port, quick group timings.
    private static func settings(_ cluster: KafkaMockCluster, redisURL: String) throws -> WorkerSettings {
        var settings = try WorkerSettings(stage: "test", environment: [:])
        settings.kafka.bootstrapServers = cluster.bootstrapServers
        settings.redisURL = redisURL
        settings.opsHost = "127.0.0.1"
        settings.opsPort = 0
        settings.kafka.properties = [
            "session.timeout.ms": "6000", "heartbeat.interval.ms": "500", "auto.commit.interval.ms": "200",
        ]
        return settings
    }

    @Test func servesMetricsHealthAndReadinessAndCommitsOnShutdown() async throws {
        try await withRedisDatabase { redis in
            let cluster = try await TestKafka.cluster(topics: [
                "in": 2, "out": 2, "rejected": 1, "in.dlq": 1, "test-stage.delayed": 2,
            ])
            let producer = try TestKafka.producer(cluster)
            var settings = try Self.settings(cluster, redisURL: redis.url)
            settings.lagInterval = .milliseconds(300)
            let stage = StageSpec(
                name: "test", consumerGroup: "test-stage", inputs: ["in"], outputs: ["out"], rejectTopic: "rejected")
            let port = Mutex<Int?>(nil)
            let worker = try Worker(
                stage: stage, handler: TestStage(output: "out"), settings: settings, logger: TestKafka.logger
            ) {
                bound in
                port.withLock { $0 = bound }
            }
            let stop = AsyncStream<Void>.makeStream()
            let running = Task { try await worker.run { for await _ in stop.stream { return } } }

            let http = HTTPClient.shared
            let base = try await eventually("ops port") { port.withLock { $0 }.map { "http://127.0.0.1:\($0)" } }
            #expect(try await get(http, base + "/healthz").status == 200)
            try await eventually("ready") { try? await get(http, base + "/readyz").status == 200 ? true : nil }

            try await TestEvents.publish(producer, to: "in", (0..<20).map { (id: "w\($0)", action: "ok") })
            _ = try await producer.send(KafkaRecord(topic: "in", key: "bad", value: "not json"))
            let metrics = try await eventually("metrics show the work and zero lag") { () -> String? in
                guard let text = try? await get(http, base + "/metrics").body else { return nil }
                let produced = text.contains(#"iap_stage_messages_total{stage="test",outcome="produced"} 20"#)
                let rejected = text.contains(#"iap_stage_messages_total{stage="test",outcome="rejected"} 1"#)
                let lagZero =
                    text.contains(#"iap_consumer_lag{stage="test",topic="in",partition="0"} 0.0"#)
                    && text.contains(#"iap_consumer_lag{stage="test",topic="in",partition="1"} 0.0"#)
                return produced && rejected && lagZero ? text : nil
            }
            #expect(metrics.contains("iap_stage_processing_seconds"))
            #expect(metrics.contains("iap_stage_in_flight"))
            // Every family a worker serves has its help (decision D28), and the process metrics.
            #expect(MetricHelp.familiesWithoutHelp(metrics) == [], "families without # HELP")
            for family in [
                "process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds",
                "process_open_fds", "process_max_fds", "iap_build_info", "iap_ready",
            ] {
                #expect(metrics.contains("# TYPE \(family) "), "\(family) missing")
            }
            #expect(metrics.contains(#"iap_build_info{version="\#(BuildInfo.version)",revision="unknown",swift=""#))
            #expect(metrics.contains(#"iap_ready{process="iap-test"} 1.0"#))
            // kafka_exporter's names come from the one lag exporter only (D26): no double counting.
            #expect(!metrics.contains("kafka_consumergroup_"))

            stop.continuation.finish()
            try await running.value
            let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
            let lag = try await admin.consumerLag(group: "test-stage", topics: ["in"])
            #expect(lag.map(\.lag) == [0, 0], "graceful shutdown committed everything")
            await producer.close()
        }
    }

    /// A worker that starts while Redis cannot answer (down, or loading its file after a
    /// restart) waits, not ready, and takes work once Redis is back, instead of exiting.
    @Test func aWorkerStartedWhileRedisIsDownWaitsForIt() async throws {
        let redis = try await LocalRedisServer.start()
        redis.stop()
        let cluster = try await TestKafka.cluster(topics: ["in": 1, "out": 1, "rejected": 1, "test-stage.delayed": 1])
        let producer = try TestKafka.producer(cluster)
        let settings = try Self.settings(cluster, redisURL: redis.url)
        let stage = StageSpec(
            name: "test", consumerGroup: "test-stage", inputs: ["in"], outputs: ["out"], rejectTopic: "rejected")
        let port = Mutex<Int?>(nil)
        let handler = TestStage(output: "out")
        let worker = try Worker(stage: stage, handler: handler, settings: settings, logger: TestKafka.logger) {
            bound in
            port.withLock { $0 = bound }
        }
        let stop = AsyncStream<Void>.makeStream()
        let running = Task { try await worker.run { for await _ in stop.stream { return } } }
        let base = try await eventually("ops port") { port.withLock { $0 }.map { "http://127.0.0.1:\($0)" } }
        try await TestEvents.publish(producer, to: "in", [(id: "r1", action: "ok")])
        try await Task.sleep(for: .seconds(3))
        #expect(try await get(HTTPClient.shared, base + "/readyz").status == 503, "not ready without Redis")
        #expect(handler.observations.handled.isEmpty)

        try await redis.restart()
        try await eventually("ready", timeout: .seconds(30)) {
            try? await get(HTTPClient.shared, base + "/readyz").status == 200 ? true : nil
        }
        try await eventually("r1 handled", timeout: .seconds(30)) {
            handler.observations.handled.map(\.id) == ["r1"] ? true : nil
        }
        stop.continuation.finish()
        try await running.value
        await producer.close()
        redis.stop()
    }

    @Test func settingsComeFromTheEnvironment() throws {
        let settings = try WorkerSettings(
            stage: "verify",
            environment: [
                "KAFKA_BROKERS": "k1:9092,k2:9092", "REDIS_URL": "redis://:secret@r:6380/2", "IAP_OPS_PORT": "9200",
                "IAP_SHUTDOWN_GRACE_SECONDS": "12", "IAP_KAFKA_SESSION_TIMEOUT_MS": "10000", "HOSTNAME": "pod-1",
            ])
        #expect(settings.kafka.bootstrapServers == "k1:9092,k2:9092")
        #expect(settings.redisURL == "redis://:secret@r:6380/2")
        #expect(settings.opsPort == 9200)
        #expect(settings.shutdownGracePeriod == .seconds(12))
        #expect(settings.kafka.properties == ["session.timeout.ms": "10000"])
        #expect(settings.identity.clientId == "verify-pod-1")
        #expect(settings.redisPoolSize == 2 && settings.redisCommandTimeout == .seconds(5))
    }

    /// One rule per key for every process: a bad value is fatal for workers as for the gateway,
    /// and the Redis timeouts the settings table documents are read.
    @Test func aBadValueIsFatalAndEveryRedisKeyIsRead() throws {
        #expect { try WorkerSettings(stage: "verify", environment: ["IAP_OPS_PORT": "ninety"]) } throws: { error in
            (error as? SettingsError)?.key == "IAP_OPS_PORT"
        }
        #expect { try WorkerSettings(stage: "verify", environment: ["REDIS_URL": "rediss://cache:notaport"]) } throws: {
            error in
            (error as? SettingsError)?.key == "REDIS_URL"
        }
        let settings = try WorkerSettings(
            stage: "verify",
            environment: [
                "REDIS_POOL_SIZE": "3", "REDIS_CONNECT_TIMEOUT_MS": "250", "REDIS_COMMAND_TIMEOUT_MS": "750",
            ])
        #expect(settings.redisPoolSize == 3)
        #expect(
            settings.redisConnectTimeout == .milliseconds(250) && settings.redisCommandTimeout == .milliseconds(750))
    }
}
