import Contracts
import Foundation
import Hosting
import Kafka
import LocalServices
import Pipeline
import Redis
import Synchronization
import TestSupport
import Testing
import Topology

/// A stage whose state store finds Redis emptied stops at once, long before the generation
/// watch's next look, and leaves the record it was deciding unfinished: the restart rebuilds
/// and decides it then (decision D35).
@Suite(.timeLimit(.minutes(3))) struct GenerationFenceTests {
    /// Reads its "state" (`state:<id>`) with the stage's marker in one round trip, as match's and
    /// grant's stores do, and produces what it found.
    struct FencedStage: MessageHandler {
        let redis: RedisClient
        let fence: GenerationFence

        func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<TestEvent> {
            let event = try EventDecoder.decode(TestEvent.self, from: message.record.value)
            return Prepared(event, idempotencyKey: "fenced:\(event.id)")
        }

        func handle(_ event: TestEvent, message: InboundMessage) async throws -> StageOutcome {
            let replies = try await redis.pipeline([
                ["GET", .string("state:\(event.id)")], ["GET", .string(fence.key)],
            ])
            let state = replies[0].string
            if state == nil { try fence.check(replies[1].bytes) }
            return .produce([
                KafkaRecord(
                    topic: "out", key: event.id, value: "{\"id\":\"\(event.id)\",\"state\":\"\(state ?? "none")\"}")
            ])
        }
    }

    final class Rebuilds: Sendable {
        let count = Mutex(0)
    }

    /// The task's result, or nil (and the task cancelled) when it has none within `limit`.
    static func result(of task: Task<Void, any Error>, within limit: Duration) async -> Result<Void, any Error>? {
        await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask { await task.result }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            if first == nil { task.cancel() }
            group.cancelAll()
            return first
        }
    }

    @Test func aStoreFindingRedisEmptiedStopsTheWorkerBeforeTheWatchLooks() async throws {
        try await withRedisServer { redis in
            let cluster = try await TestKafka.cluster(topics: [
                "in": 2, "out": 2, "rejected": 1, "in.dlq": 1, "fenced-stage.delayed": 2,
            ])
            let producer = try TestKafka.producer(cluster)
            let stage = StageSpec(
                name: "fenced", consumerGroup: "fenced-stage", inputs: ["in"], outputs: ["out"],
                rejectTopic: "rejected")
            var settings = try RedisLossTests.settings(cluster: cluster, redis: redis)
            settings.generationCheckInterval = .seconds(3600)
            // What the stage's recovery step restores, as a rebuild from a compacted topic would.
            let rebuilds = Rebuilds()
            let worker = {
                try Worker(
                    stage: stage, settings: settings, logger: TestKafka.logger,
                    recoverySteps: { resources in
                        [
                            StateRecovery.Step("state of a and b") {
                                rebuilds.count.withLock { $0 += 1 }
                                for id in ["a", "b"] {
                                    _ = try await resources.redis.send("SET", .string("state:\(id)"), "kept", "NX")
                                }
                                return "2 restored"
                            }
                        ]
                    },
                    makeHandler: { FencedStage(redis: $0.redis, fence: $0.fence) })
            }
            let output = try ConsumerProbe(cluster, group: "check", topics: ["out"])

            let first = try worker()
            let firstRun = Task { try await first.run { await Task.never() } }
            try await TestEvents.publish(producer, to: "in", [("a", "ok")])
            _ = try await output.waitForMessages(1, timeout: .seconds(60))

            try await withClient(try redis.configuration()) { client in _ = try await client.send("FLUSHALL") }
            let flushed = ContinuousClock.now
            try await TestEvents.publish(producer, to: "in", [("b", "ok")])
            let stopped = await Self.result(of: firstRun, within: .seconds(30))
            #expect(stopped != nil, "the worker did not stop within 30 s of the loss; its watch looks hourly")
            #expect(throws: StateLost.self) { try stopped?.get() }
            #expect(ContinuousClock.now - flushed < .seconds(60), "stopped by the store, not by the hourly watch")

            let second = try worker()
            let secondRun = Task { try await second.run { await Task.never() } }
            _ = try await output.waitForMessages(2, timeout: .seconds(60))
            // Once the restarted worker committed past everything, all it will write is written.
            let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
            _ = try await eventually("the restarted worker committed past every input") {
                try await admin.consumerLag(group: "fenced-stage", topics: ["in"]).allSatisfy { $0.lag == 0 }
                    ? true : nil
            }
            let values = try await output.waitUntilCaughtUp(on: "out", admin: admin).map {
                String(decoding: $0.value, as: UTF8.self)
            }
            #expect(
                values == ["{\"id\":\"a\",\"state\":\"kept\"}", "{\"id\":\"b\",\"state\":\"kept\"}"],
                "b was decided once, after the rebuild, not against the emptied Redis")
            #expect(rebuilds.count.withLock { $0 } == 2, "the first start and the restart after the loss")

            secondRun.cancel()
            _ = await secondRun.result
            await output.close()
            await producer.close()
        }
    }
}
