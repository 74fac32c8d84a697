import Foundation
import Hosting
import Kafka
import LocalServices
import Pipeline
import Prometheus
import TestSupport
import Testing
import Topology

private let topics: [String: Int32] = ["in": 3, "other": 3, "out": 3, "rejected": 1, "in.dlq": 1]

private func values(_ messages: [KafkaMessage]) -> [String] {
    messages.map { String(decoding: $0.value, as: UTF8.self) }
}

/// Everything on the test's `in`, read to its end in a group of its own: what was published, and
/// any copy a stage put back.
private func inputRecords(_ kafka: SharedKafka, admin: KafkaAdmin) async throws -> [KafkaMessage] {
    let input = try ConsumerProbe(kafka.cluster, group: kafka.group("input"), topics: [kafka.topic("in")])
    let records = try await input.waitUntilCaughtUp(on: kafka.topic("in"), admin: admin)
    await input.close()
    return records
}

@Suite(.timeLimit(.minutes(2))) struct RuntimeTests {
    @Test func storedOffsetStopsAtUnfinishedRecordsAndACrashReplaysOnlyThem() async throws {
        let kafka = try await TestKafka.shared(topics: ["in": 1, "out": 1, "rejected": 1])
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        let idempotency = InMemoryIdempotency()
        let retries = InMemoryRetryStore()
        let events = (0..<10).map { (id: "e\($0)", action: $0 == 3 || $0 == 7 ? "block" : "ok") }
        try await TestEvents.publish(producer, to: kafka.topic("in"), events)

        let first = try RuntimeReplica(kafka: kafka, retries: retries, idempotency: idempotency) {
            $0.lockTTL = .seconds(2)
        }
        try await eventually("8 of 10 finished") { idempotency.isDoneCount(of: events.map(\.id)) == 8 ? true : nil }
        let partition = TopicPartition(kafka.topic("in"), 0)
        let committed = try await eventually("offset 3 committed") {
            try await admin.committedOffsets(group: kafka.group("test-stage"), partitions: [partition])[partition] == 3
                ? 3 : nil
        }
        #expect(committed == 3)
        try await Task.sleep(for: .milliseconds(600))  // several auto-commit intervals
        #expect(
            try await admin.committedOffsets(group: kafka.group("test-stage"), partitions: [partition])[partition] == 3,
            "never past unfinished offset 3")

        await first.kill()  // offsets 3 and 7 never finished
        let second = try RuntimeReplica(kafka: kafka, retries: retries, idempotency: idempotency)
        second.stage.gate.open()
        try await eventually("all 10 finished") { idempotency.isDoneCount(of: events.map(\.id)) == 10 ? true : nil }
        #expect(
            Set(second.stage.observations.handled.map(\.id)) == ["e3", "e7"],
            "finished records are replayed but not redone")
        try await second.stop()

        let output = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("out")])
        try await output.waitForMessages(10)
        let produced = try await output.waitUntilCaughtUp(on: kafka.topic("out"), admin: admin)
        #expect(produced.count == 10, "each record's output exactly once")
        #expect(Set(values(produced)) == Set(events.map { "{\"id\":\"\($0.id)\"}" }))
        #expect(
            try await admin.committedOffsets(group: kafka.group("test-stage"), partitions: [partition])[partition] == 10
        )
        await output.close()
        await producer.close()
    }

    @Test func retryIsRedeliveredNoEarlierThanAskedWithTheAttemptCounted() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let replica = try RuntimeReplica(
            kafka: kafka, retries: InMemoryRetryStore(), idempotency: InMemoryIdempotency())
        try await TestEvents.publish(
            producer, to: kafka.topic("in"), [(id: "r1", action: "retry")], extra: ",\"retryAfterMs\":1000")

        let output = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("out")])
        try await output.waitForMessages(1)
        let handled = replica.stage.observations.handled
        #expect(handled.map(\.attempt) == [0, 1])
        let gap = handled[1].at - handled[0].at
        #expect(gap >= .seconds(1), "redelivered after \(gap), asked for 1 s")
        try await replica.stop()
        await output.close()
        await producer.close()
    }

    @Test func exhaustedRetriesLandInTheDLQWithSourceHeaders() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let replica = try RuntimeReplica(
            kafka: kafka, retries: InMemoryRetryStore(), idempotency: InMemoryIdempotency())
        try await TestEvents.publish(
            producer, to: kafka.topic("in"), [(id: "dead", action: "fail"), (id: "fine", action: "ok")])

        let dlq = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("in.dlq")])
        let dead = try #require(try await dlq.waitForMessages(1).first)
        #expect(values([dead]) == ["{\"schema\":\"test.v1\",\"id\":\"dead\",\"action\":\"fail\"}"])
        #expect(dead.headers.last(named: "source_topic")?.stringValue == kafka.topic("in"))
        #expect(dead.headers.last(named: "source_attempts")?.stringValue == "3")
        #expect(dead.headers.last(named: "source_partition") != nil)
        #expect(dead.headers.last(named: "source_offset") != nil)
        #expect(dead.headers.last(named: "source_consumer_group")?.stringValue == kafka.group("test-stage"))
        #expect(dead.headers.last(named: "iap_last_error")?.stringValue == "always fails")
        #expect(replica.stage.observations.handled.filter { $0.id == "dead" }.map(\.attempt) == [0, 1, 2])
        try await replica.stop()
        await dlq.close()
        await producer.close()
    }

    /// A stage with a retry topic of its own (D67): retries and waits come back through it, the
    /// input carries only what its writers published, and a record that died there is
    /// dead-lettered under it, so a replay goes back to this stage alone.
    @Test func retriesAndWaitsComeBackThroughTheStagesRetryTopicNeverItsInput() async throws {
        let kafka = try await TestKafka.shared(topics: topics.merging(["retry": 3, "retry.dlq": 1]) { $1 })
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        let replica = try RuntimeReplica(
            kafka: kafka, retries: InMemoryRetryStore(), idempotency: InMemoryIdempotency(), inputs: ["in", "retry"]
        ) { $0.retryTopic = kafka.topic("retry") }
        try await TestEvents.publish(
            producer, to: kafka.topic("in"),
            [(id: "twice", action: "retry"), (id: "patient", action: "wait"), (id: "dead", action: "fail")],
            extra: ",\"retryAfterMs\":100,\"succeedAt\":2")
        let dlq = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("retry.dlq")])
        let dead = try #require(try await dlq.waitForMessages(1).first)
        #expect(dead.headers.last(named: "source_topic")?.stringValue == kafka.topic("retry"))
        #expect(dead.headers.last(named: "source_attempts")?.stringValue == "3")
        _ = try await eventually("a wait came back") {
            replica.stage.observations.handled.filter { $0.id == "patient" }.count >= 3 ? true : nil
        }
        replica.stage.gate.open()
        let output = try ConsumerProbe(cluster, group: kafka.group("out"), topics: [kafka.topic("out")])
        #expect(Set(values(try await output.waitForMessages(2))) == ["{\"id\":\"twice\"}", "{\"id\":\"patient\"}"])
        #expect(replica.stage.observations.handled.filter { $0.id == "twice" }.map(\.attempt) == [0, 1, 2])
        try await replica.stop()

        #expect(try await inputRecords(kafka, admin: admin).count == 3, "only the published")
        let returned = try ConsumerProbe(cluster, group: kafka.group("returned"), topics: [kafka.topic("retry")])
        let copies = try await returned.waitUntilCaughtUp(on: kafka.topic("retry"), admin: admin)
        // twice: 2 retries; dead: 2 retries; patient: a wait per round until the gate opened.
        #expect(copies.count >= 6)
        await returned.close()
        await output.close()
        await dlq.close()
        await producer.close()
    }

    /// A stage that retries in place (D68: the customer state, whose input backends read) tries a
    /// failed record again where it is: its input carries
    /// only what was published, the record's attempt count stays that of its delivery, and a
    /// spent budget still ends in the input's dead-letter topic with the tries counted.
    @Test func aStageRetryingInPlaceNeverRepublishesAFailedRecord() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        let replica = try RuntimeReplica(
            kafka: kafka, retries: InMemoryRetryStore(), idempotency: InMemoryIdempotency()
        ) {
            $0.retriesInPlace = [kafka.topic("in")]
        }
        try await TestEvents.publish(
            producer, to: kafka.topic("in"),
            [(id: "flaky", action: "flaky"), (id: "fine", action: "ok"), (id: "dead", action: "fail")],
            extra: ",\"succeedAt\":2")
        let output = try ConsumerProbe(cluster, group: kafka.group("out"), topics: [kafka.topic("out")])
        #expect(Set(values(try await output.waitForMessages(2))) == ["{\"id\":\"flaky\"}", "{\"id\":\"fine\"}"])
        let dlq = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("in.dlq")])
        let dead = try #require(try await dlq.waitForMessages(1).first)
        #expect(dead.headers.last(named: "source_topic")?.stringValue == kafka.topic("in"))
        #expect(dead.headers.last(named: "source_attempts")?.stringValue == "3")
        for id in ["flaky", "dead"] {
            #expect(replica.stage.observations.handled.filter { $0.id == id }.map(\.attempt) == [0, 0, 0], "\(id)")
        }
        try await replica.stop()

        #expect(try await inputRecords(kafka, admin: admin).count == 3, "only the published")
        #expect(try await output.waitUntilCaughtUp(on: kafka.topic("out"), admin: admin).count == 2, "each output once")
        await output.close()
        await dlq.close()
        await producer.close()
    }

    /// In place only where the stage names the input (D69: match's orders, not its verified
    /// transactions): a failure of another input is scheduled and comes back as a new attempt.
    @Test func aStageRetriesInPlaceOnlyTheInputsItNames() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let producer = try TestKafka.producer(kafka.cluster)
        let replica = try RuntimeReplica(
            kafka: kafka, retries: InMemoryRetryStore(), idempotency: InMemoryIdempotency(), inputs: ["in", "other"]
        ) {
            $0.retriesInPlace = [kafka.topic("in")]
        }
        try await TestEvents.publish(producer, to: kafka.topic("in"), [(id: "held", action: "flaky")])
        try await TestEvents.publish(producer, to: kafka.topic("other"), [(id: "scheduled", action: "flaky")])
        let output = try ConsumerProbe(kafka.cluster, group: kafka.group("out"), topics: [kafka.topic("out")])
        #expect(Set(values(try await output.waitForMessages(2))) == ["{\"id\":\"held\"}", "{\"id\":\"scheduled\"}"])
        #expect(replica.stage.observations.handled.filter { $0.id == "held" }.map(\.attempt) == [0, 0])
        #expect(replica.stage.observations.handled.filter { $0.id == "scheduled" }.map(\.attempt) == [0, 1])
        try await replica.stop()
        await output.close()
        await producer.close()
    }

    /// A worker that stops while a record waits out a long in-place delay does not sit it out:
    /// it gives the record back, uncommitted, and the next replica finishes it.
    @Test func aWorkerStoppingWhileARecordWaitsInPlaceGivesItBack() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let stage = TestStage(output: kafka.topic("out"))
        let retries = InMemoryRetryStore()
        let idempotency = InMemoryIdempotency()
        let inPlace: (inout WorkerConfiguration) -> Void = {
            $0.retriesInPlace = [kafka.topic("in")]
            $0.retryPolicy = RetryPolicy(initialBackoff: .seconds(600), maxBackoff: .seconds(600), jitter: 0)
        }
        let registry = PrometheusCollectorRegistry()
        let first = try RuntimeReplica(
            kafka: kafka, stage: stage, retries: retries, idempotency: idempotency,
            metricsFactory: PrometheusMetricsFactory(registry: registry), configure: inPlace)
        let exposed = { String(decoding: OpsServer.exposition(registry), as: UTF8.self) }
        try await TestEvents.publish(producer, to: kafka.topic("in"), [(id: "flaky", action: "flaky")])
        try await eventually("the first try failed") { stage.observations.handled.count == 1 ? true : nil }
        // What tells an operator why the partition's lag stays up: one record held, for seconds.
        _ = try await eventually("the held record is exported with its age") {
            let text = exposed()
            return text.contains(#"iap_stage_retrying_in_place{stage="test"} 1"#)
                && !text.contains(#"iap_stage_retrying_in_place_oldest_seconds{stage="test"} 0"#) ? true : nil
        }
        let stopped = Gate()
        Task {
            try await first.stop()
            stopped.open()
        }
        try await eventually("stopped without sitting out the 10-minute delay", timeout: .seconds(60)) {
            stopped.isOpened ? true : nil
        }
        #expect(exposed().contains(#"iap_stage_retrying_in_place{stage="test"} 0"#), "given back, no longer held")
        #expect(exposed().contains(#"iap_stage_retrying_in_place_oldest_seconds{stage="test"} 0"#))

        let second = try RuntimeReplica(
            kafka: kafka, stage: stage, retries: retries, idempotency: idempotency, configure: inPlace)
        let output = try ConsumerProbe(cluster, group: kafka.group("out"), topics: [kafka.topic("out")])
        #expect(values(try await output.waitForMessages(1)) == ["{\"id\":\"flaky\"}"])
        #expect(stage.observations.handled.count == 2)
        #expect(try await retries.depth() == 0, "nothing was scheduled")
        try await second.stop()
        await output.close()
        await producer.close()
    }

    /// Waiting is not failing: a record that waits far longer than its retries could last is
    /// never charged an attempt; it waits until the stage's `retry.maxWait` from when it first
    /// waited, then goes to the DLQ saying so.
    @Test func aWaitIsNeverAnAttemptAndEndsInTheDLQOnlyPastMaxWait() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let retries = InMemoryRetryStore()
        let replica = try RuntimeReplica(kafka: kafka, retries: retries, idempotency: InMemoryIdempotency()) {
            // Three attempts 100 ms apart would be spent in well under a second; waits of 100 ms
            // go on for 20 s (a loaded CI machine took 3 s a round, so 10 s saw only three).
            $0.retryPolicy.maxWait = .seconds(20)
        }
        try await TestEvents.publish(
            producer, to: kafka.topic("in"), [(id: "patient", action: "wait")], extra: ",\"retryAfterMs\":100")
        let dlq = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("in.dlq")])
        let waiting = try await eventually("the wait is counted") { () -> WaitingSummary? in
            let summary = try await retries.waiting()
            return summary.counts["gate"] == 1 ? summary : nil
        }
        #expect(waiting.oldestSince != nil)
        let dead = try #require(try await dlq.waitForMessages(1, timeout: .seconds(60)).first)
        let lastError = try #require(dead.headers.last(named: "iap_last_error")?.stringValue)
        #expect(lastError.contains("retry.maxWait") && lastError.contains("for gate"), "\(lastError)")
        #expect(dead.headers.last(named: "source_attempts")?.stringValue == "0")
        let handled = replica.stage.observations.handled.filter { $0.id == "patient" }
        #expect(handled.count > 3, "it waited more often than it could have retried")
        #expect(handled.allSatisfy { $0.attempt == 0 })
        #expect(Set(handled.dropFirst().compactMap(\.waitingSince)).count == 1, "one start, carried along")
        #expect(try await retries.waiting() == WaitingSummary())
        try await replica.stop()
        await dlq.close()
        await producer.close()
    }

    /// A later delivery of the same business id that ends durably (match: the transaction its
    /// order released) cancels the wait an earlier one scheduled: the wait is never delivered.
    @Test func aWaitReplacedByALaterDeliveryIsCancelled() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let retries = InMemoryRetryStore()
        let replica = try RuntimeReplica(kafka: kafka, retries: retries, idempotency: InMemoryIdempotency())
        try await TestEvents.publish(
            producer, to: kafka.topic("in"), [(id: "released", action: "wait")], extra: ",\"retryAfterMs\":60000")
        try await eventually("the record waits") { try await retries.waiting().counts["gate"] == 1 ? true : nil }

        try await TestEvents.publish(producer, to: kafka.topic("in"), [(id: "released", action: "ok")])
        let output = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("out")])
        _ = try await output.waitForMessages(1)
        try await eventually("the wait is cancelled") { try await retries.depth() == 0 ? true : nil }
        #expect(try await retries.waiting() == WaitingSummary())
        #expect(replica.stage.observations.handled.filter { $0.id == "released" }.count == 2)
        try await replica.stop()
        await output.close()
        await producer.close()
    }

    @Test func badInputIsRejectedWithAReasonAndTheWorkerKeepsGoing() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let replica = try RuntimeReplica(
            kafka: kafka, retries: InMemoryRetryStore(), idempotency: InMemoryIdempotency()
        ) {
            $0.maxMessageBytes = 4096
        }
        _ = try await producer.send([
            KafkaRecord(topic: kafka.topic("in"), key: "a", value: "this is not json"),
            KafkaRecord(
                topic: kafka.topic("in"), key: "b", value: "{\"schema\":\"other.v9\",\"id\":\"x\",\"action\":\"ok\"}"),
            KafkaRecord(topic: kafka.topic("in"), key: "c", value: "{\"schema\":\"test.v1\",\"action\":\"ok\"}"),
            KafkaRecord(
                topic: kafka.topic("in"), key: Array("d".utf8),
                value: [UInt8](repeating: UInt8(ascii: "{"), count: 10_000)),
            KafkaRecord(topic: kafka.topic("in"), key: Array("e".utf8), value: [0xff, 0xfe, 0x00]),
        ])
        try await TestEvents.publish(producer, to: kafka.topic("in"), [(id: "after", action: "ok")])

        let rejected = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("rejected")])
        let output = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("out")])
        let rejects = try await rejected.waitForMessages(5)
        let bodies = try rejects.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.value)) as? [String: Any])
        }
        let byKey = Dictionary(
            uniqueKeysWithValues: zip(rejects.map { String(decoding: $0.key ?? [], as: UTF8.self) }, bodies))
        #expect(byKey["a"]?["reason"] as? String == "malformed_event")
        #expect(byKey["a"]?["event"] as? String == "this is not json")
        #expect(byKey["b"]?["reason"] as? String == "unsupported_schema")
        #expect(
            (byKey["b"]?["event"] as? [String: Any])?["schema"] as? String == "other.v9",
            "JSON events are embedded as JSON")
        #expect(byKey["c"]?["reason"] as? String == "malformed_event")
        #expect(byKey["c"]?["detail"] as? String == "missing field 'id'")
        #expect(byKey["d"]?["reason"] as? String == "malformed_event")
        #expect((byKey["d"]?["detail"] as? String)?.contains("10000 bytes") == true)
        #expect(byKey["e"]?["reason"] as? String == "malformed_event")
        #expect(rejects.allSatisfy { $0.headers.last(named: "reject_reason") != nil })
        #expect(values(try await output.waitForMessages(1)) == ["{\"id\":\"after\"}"])
        try await replica.stop()
        await rejected.close()
        await output.close()
        await producer.close()
    }

    /// A refusal detail quoting an oversized field is cut to a bounded excerpt that says the
    /// original size, so one hostile record cannot write a reject record of its own size.
    @Test func refusalDetailsAreBoundedExcerptsWithTheSize() async throws {
        let kafka = try await TestKafka.shared(topics: topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let replica = try RuntimeReplica(
            kafka: kafka, retries: InMemoryRetryStore(), idempotency: InMemoryIdempotency())
        let huge = String(repeating: "é", count: 150_000)
        try await TestEvents.publish(
            producer, to: kafka.topic("in"), [(id: huge, action: "reject"), (id: "short", action: "reject")])

        let rejected = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("rejected")])
        let rejects = try await rejected.waitForMessages(2)
        let details = try rejects.map { record in
            let body = try #require(try JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any])
            return try #require(body["detail"] as? String)
        }
        let long = try #require(details.first { $0.hasPrefix("id 'é") })
        #expect(long.utf8.count <= Excerpt.detailLimit + 32, "detail of \(long.utf8.count) bytes")
        #expect(long.hasSuffix("…(300016 bytes)"))
        #expect(details.contains("id 'short' is refused"), "short details are kept whole")
        try await replica.stop()
        await rejected.close()
        await producer.close()
    }

    @Test func twoReplicasShareTheWorkWithoutOverlapOrLoss() async throws {
        let kafka = try await TestKafka.shared(topics: ["in": 6, "out": 3, "rejected": 1])
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let retries = InMemoryRetryStore()
        let idempotency = InMemoryIdempotency()
        let stage = TestStage(output: kafka.topic("out"))  // shared, so overlap between replicas is observable
        let first = try RuntimeReplica(kafka: kafka, stage: stage, retries: retries, idempotency: idempotency)
        try await TestEvents.publish(producer, to: kafka.topic("in"), (0..<300).map { (id: "a\($0)", action: "ok") })
        try await eventually("first replica is working") { stage.observations.handled.count > 50 ? true : nil }

        let second = try RuntimeReplica(kafka: kafka, stage: stage, retries: retries, idempotency: idempotency)
        for batch in 0..<10 {
            try await TestEvents.publish(
                producer, to: kafka.topic("in"), (0..<100).map { (id: "b\(batch)-\($0)", action: "ok") })
            try await Task.sleep(for: .milliseconds(300))
        }
        let expected = Set((0..<300).map { "a\($0)" } + (0..<10).flatMap { b in (0..<100).map { "b\(b)-\($0)" } })
        try await eventually("all 1300 done", timeout: .seconds(60)) {
            idempotency.isDoneCount(of: Array(expected)) == expected.count ? true : nil
        }
        #expect(
            stage.observations.overlaps.isEmpty, "a record ran in both replicas at once: \(stage.observations.overlaps)"
        )

        try await first.stop()
        try await second.stop()
        let output = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("out")])
        let produced = try await output.waitForMessages(expected.count)
        #expect(Set(values(produced)) == Set(expected.map { "{\"id\":\"\($0)\"}" }), "nothing lost")
        await output.close()
        await producer.close()
    }

    /// A delivery's state copy waits for its outputs (D52): with the outputs' broker down, the
    /// state topic stays empty and nothing is saved, though the state's own broker is up; once
    /// the outputs are acknowledged, the copy is written, then the state saved. In one produce
    /// the copy could land alone, and a rebuild after a Redis loss would trust it.
    @Test func aDeliverysStateCopyWaitsForItsOutputs() async throws {
        let cluster = try await TestKafka.cluster(topics: ["in": 1, "out": 2, "state": 1, "rejected": 1], brokers: 2)
        let kafka = SharedKafka(cluster: cluster)
        for topic in ["in", "state", "rejected"] {
            try await cluster.setPartitionLeader(topic, partition: 0, broker: 1)
        }
        for partition in Int32(0)..<2 { try await cluster.setPartitionLeader("out", partition: partition, broker: 2) }
        try await cluster.setGroupCoordinator(kafka.group("test-stage"), broker: 1)
        let producer = try TestKafka.producer(cluster)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)
        try await cluster.setBrokerDown(2)
        let replica = try RuntimeReplica(
            kafka: kafka, stage: TestStage(output: "out", stateOutput: "state"), retries: InMemoryRetryStore(),
            idempotency: InMemoryIdempotency())
        try await TestEvents.publish(producer, to: "in", [(id: "d1", action: "deliver")])
        try await eventually("d1 handled", timeout: .seconds(30)) {
            replica.stage.observations.handled.isEmpty ? nil : true
        }
        try await Task.sleep(for: .seconds(2))
        #expect(try await admin.lastOffsets(of: ["state"]).isEmpty, "no copy while its outputs are unacknowledged")
        #expect(replica.stage.observations.saved.isEmpty)

        try await cluster.setBrokerUp(2)
        try await eventually("d1 saved", timeout: .seconds(60)) {
            replica.stage.observations.saved == ["d1"] ? true : nil
        }
        #expect(try await admin.lastOffsets(of: ["state"]) == [TopicPartition("state", 0): 0])
        #expect(try await admin.lastOffsets(of: ["out"]).values.reduce(0) { $0 + $1 + 1 } == 1)
        try await replica.stop()
        await producer.close()
    }

    @Test func brokerOutageDuringProcessingLosesNothing() async throws {
        // Its broker goes down: a cluster of its own, not the one other tests share.
        let cluster = try await TestKafka.cluster(topics: topics)
        let kafka = SharedKafka(cluster: cluster)
        let producer = try TestKafka.producer(cluster)
        let idempotency = InMemoryIdempotency()
        let replica = try RuntimeReplica(kafka: kafka, retries: InMemoryRetryStore(), idempotency: idempotency)
        let ids = (0..<200).map { "o\($0)" }
        try await TestEvents.publish(producer, to: kafka.topic("in"), ids.prefix(100).map { (id: $0, action: "ok") })
        try await eventually("some processed") { idempotency.isDoneCount(of: ids) > 10 ? true : nil }
        try await cluster.setBrokerDown(1)
        let late = Task {
            try await TestEvents.publish(
                producer, to: kafka.topic("in"), ids.suffix(100).map { (id: $0, action: "ok") })
        }
        try await Task.sleep(for: .seconds(3))
        try await cluster.setBrokerUp(1)
        try await late.value
        try await eventually("all 200 done", timeout: .seconds(60)) {
            idempotency.isDoneCount(of: ids) == 200 ? true : nil
        }
        try await replica.stop()

        let output = try ConsumerProbe(cluster, group: kafka.group("check"), topics: [kafka.topic("out")])
        let produced = try await output.waitForMessages(200)
        #expect(Set(values(produced)) == Set(ids.map { "{\"id\":\"\($0)\"}" }))
        await output.close()
        await producer.close()
    }
}

extension InMemoryIdempotency {
    func isDoneCount(of ids: [String]) -> Int { ids.filter { isDone("test:\($0)") }.count }
}
