import Foundation
import Kafka
import LocalServices
import Pipeline
import Redis
import TestSupport
import Testing

/// The runtime with its production stores: retries in a Redis delay queue, done markers and
/// locks in Redis, shared by replicas that each have their own Redis client (as processes do).
@Suite(.timeLimit(.minutes(2))) struct RedisRuntimeTests {
    @Test func retriesGoThroughRedisAndExhaustedOnesReachTheDLQ() async throws {
        try await withRedisDatabase { server in
            let client = RedisClient(configuration: try server.configuration())
            let kafka = try await TestKafka.shared(topics: ["in": 3, "out": 3, "rejected": 1, "in.dlq": 1])
            let cluster = kafka.cluster
            let producer = try TestKafka.producer(cluster)
            let replica = try RuntimeReplica(
                kafka: kafka, retries: RedisRetryStore(client: client, stage: "test"),
                idempotency: RedisIdempotencyGuard(client: client, stage: "test")
            )
            try await TestEvents.publish(
                producer, to: kafka.topic("in"), [(id: "later", action: "retry"), (id: "never", action: "fail")],
                extra: ",\"retryAfterMs\":1000")
            let out = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("out")])
            let dlq = try ConsumerProbe(cluster, group: kafka.group("check-dlq"), topics: [kafka.topic("in.dlq")])
            #expect(
                try await out.waitForMessages(1).map { String(decoding: $0.value, as: UTF8.self) } == [
                    "{\"id\":\"later\"}"
                ])
            let dead = try #require(try await dlq.waitForMessages(1).first)
            #expect(dead.headers.last(named: "source_attempts")?.stringValue == "3")

            let later = replica.stage.observations.handled.filter { $0.id == "later" }
            #expect(later.map(\.attempt) == [0, 1])
            #expect(later[1].at - later[0].at >= .seconds(1))
            #expect(
                try await RedisRetryStore(client: client, stage: "test").depth() == 0,
                "promoted retries are acknowledged")
            try await replica.stop()
            await out.close()
            await dlq.close()
            await producer.close()
            await client.shutdown()
        }
    }

    @Test func doneMarkersInRedisStopAReplacementReplicaFromRedoingWork() async throws {
        try await withRedisDatabase { server in
            let kafka = try await TestKafka.shared(topics: ["in": 1, "out": 1, "rejected": 1])
            let cluster = kafka.cluster
            let producer = try TestKafka.producer(cluster)
            let events = (0..<8).map { (id: "d\($0)", action: $0 == 5 ? "block" : "ok") }
            try await TestEvents.publish(producer, to: kafka.topic("in"), events)

            let out = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("out")])
            let firstClient = RedisClient(configuration: try server.configuration())
            let first = try RuntimeReplica(
                kafka: kafka, retries: RedisRetryStore(client: firstClient, stage: "test"),
                idempotency: RedisIdempotencyGuard(client: firstClient, stage: "test")
            ) { $0.lockTTL = .seconds(2) }
            try await out.waitForMessages(7)
            // Outputs are visible a moment before their done markers land (the at-least-once
            // window); kill only once all seven finished records are marked done.
            _ = try await eventually("7 done markers") {
                var done = 0
                for key in try await firstClient.send(["KEYS", "iap:idem:*"]).array?.compactMap(\.string) ?? [] {
                    if try await firstClient.send(["GET", .string(key)]).string?.hasPrefix("D") == true { done += 1 }
                }
                return done == 7 ? true : nil
            }
            await first.kill()
            await firstClient.shutdown()

            let secondClient = RedisClient(configuration: try server.configuration())
            let second = try RuntimeReplica(
                kafka: kafka, retries: RedisRetryStore(client: secondClient, stage: "test"),
                idempotency: RedisIdempotencyGuard(client: secondClient, stage: "test")
            )
            second.stage.gate.open()
            try await out.waitForMessages(8)
            _ = try await eventually("the replacement committed everything") {
                try await KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
                    .committedOffsets(
                        group: kafka.group("test-stage"), partitions: [TopicPartition(kafka.topic("in"), 0)])[
                        TopicPartition(kafka.topic("in"), 0)] == 8 ? true : nil
            }
            #expect(out.messages.count == 8, "every event produced exactly once")
            #expect(second.stage.observations.handled.map(\.id) == ["d5"], "only the unfinished event is redone")
            try await second.stop()
            await out.close()
            await producer.close()
            await secondClient.shutdown()
        }
    }
}
