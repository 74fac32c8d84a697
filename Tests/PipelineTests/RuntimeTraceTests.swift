import Foundation
import Kafka
import LocalServices
import Pipeline
import TestSupport
import Testing
import Traces

/// Every record the runtime writes for an input continues the input's trace under a span of its
/// own (decision D42): outputs, rejections, dead letters, and the re-published copies of retries
/// and waits, so a retried or waiting record stays in its trace. A record without a
/// `traceparent` starts one.
@Suite(.timeLimit(.minutes(2))) struct RuntimeTraceTests {
    static let topics: [String: Int32] = ["in": 3, "out": 3, "rejected": 1, "in.dlq": 1]

    /// A traceparent per test event, its trace id made of the event's number.
    static func traceparent(_ number: Int) -> String {
        "00-\(String(repeating: String(number), count: 32))-00f067aa0ba902b7-01"
    }

    static func record(_ id: String, _ action: String, traceparent: String?, extra: String = "", on topic: String)
        -> KafkaRecord
    {
        KafkaRecord(
            topic: topic, key: id, value: "{\"schema\":\"test.v1\",\"id\":\"\(id)\",\"action\":\"\(action)\"\(extra)}",
            headers: traceparent.map { [KafkaHeader(name: "traceparent", string: $0)] } ?? [])
    }

    static func traceparent(of message: KafkaMessage) -> String? {
        message.headers.last(named: TraceHeaders.traceparent)?.stringValue
    }

    static func spanId(_ traceparent: String?) -> Substring? { traceparent?.dropFirst(36).prefix(16) }

    static func probe(_ kafka: SharedKafka, _ topic: String) throws -> ConsumerProbe {
        try ConsumerProbe(kafka.cluster, group: kafka.group("check-\(topic)"), topics: [kafka.topic(topic)])
    }

    @Test func everyRecordWrittenForAnInputContinuesItsTraceUnderItsOwnSpan() async throws {
        let kafka = try await TestKafka.shared(topics: Self.topics)
        let cluster = kafka.cluster
        let producer = try TestKafka.producer(cluster)
        let replica = try RuntimeReplica(
            kafka: kafka, retries: InMemoryRetryStore(), idempotency: InMemoryIdempotency())
        _ = try await producer.send([
            Self.record(
                "retried", "retry", traceparent: Self.traceparent(1), extra: ",\"retryAfterMs\":10",
                on: kafka.topic("in")),
            Self.record("refused", "reject", traceparent: Self.traceparent(2), on: kafka.topic("in")),
            Self.record("dead", "fail", traceparent: Self.traceparent(3), on: kafka.topic("in")),
            Self.record(
                "waited", "wait", traceparent: Self.traceparent(4), extra: ",\"retryAfterMs\":100",
                on: kafka.topic("in")),
            Self.record("untraced", "ok", traceparent: nil, on: kafka.topic("in")),
        ])
        let out = try Self.probe(kafka, "out")
        let rejected = try Self.probe(kafka, "rejected")
        let dlq = try Self.probe(kafka, "in.dlq")
        try await eventually("the waiting record waited") {
            replica.stage.observations.handled.filter { $0.id == "waited" }.count >= 2 ? true : nil
        }
        replica.stage.gate.open()
        let outputs = try await out.waitForMessages(3)
        let refused = try #require(try await rejected.waitForMessages(1).first)
        let dead = try #require(try await dlq.waitForMessages(1).first)
        let handled = replica.stage.observations.handled
        func output(_ id: String) -> KafkaMessage? {
            outputs.first { String(decoding: $0.value, as: UTF8.self).contains("\"\(id)\"") }
        }

        // Each input's deliveries and what it finally wrote: one trace, a span per hop.
        for (id, number, written) in [
            ("retried", 1, output("retried")), ("dead", 3, dead), ("waited", 4, output("waited")),
        ] {
            let deliveries = handled.filter { $0.id == id }.map(\.traceparent)
            let chain = deliveries + [written.flatMap(Self.traceparent(of:))]
            #expect(deliveries.count >= 2, "\(id) was delivered again")
            #expect(deliveries.first == Self.traceparent(number), "\(id): the first delivery is the published record")
            for traceparent in chain {
                #expect(
                    traceparent.flatMap(TraceHeaders.traceId) == String(repeating: String(number), count: 32)[...],
                    "\(id): \(traceparent ?? "no traceparent") left the trace")
            }
            #expect(Set(chain.map(Self.spanId)).count == chain.count, "\(id): a span id per hop: \(chain)")
        }
        #expect(Self.traceparent(of: refused).flatMap(TraceHeaders.traceId) == String(repeating: "2", count: 32)[...])
        #expect(Self.spanId(Self.traceparent(of: refused)) != Self.spanId(Self.traceparent(2)))

        // A record without a traceparent starts a trace: its output carries one.
        let untraced = try #require(output("untraced").flatMap(Self.traceparent(of:)))
        #expect(TraceHeaders.traceId(of: untraced) != nil)
        #expect(handled.first { $0.id == "untraced" }?.traceparent == nil)

        try await replica.stop()
        for probe in [out, rejected, dlq] { await probe.close() }
        await producer.close()
    }
}
