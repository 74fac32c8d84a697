import Foundation
import Kafka
import LocalServices
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct ProduceConsumeTests {
    @Test func roundTripCommitsAndLagFollowsTheLog() async throws {
        let kafka = try await TestKafka.shared(topics: ["orders": 3])
        let cluster = kafka.cluster
        let orders = kafka.topic("orders")
        let group = kafka.group("g1")
        let producer = try TestKafka.producer(cluster)
        let admin = try KafkaAdmin(bootstrapServers: cluster.bootstrapServers, logger: TestKafka.logger)

        try await TestKafka.publish(producer, topic: orders, count: 30)
        let before = try await admin.consumerLag(group: group, topics: [orders])
        #expect(before.count == 3)
        #expect(before.allSatisfy { $0.committedOffset == nil && $0.lowWatermark == 0 })
        #expect(before.map(\.highWatermark).reduce(0, +) == 30)
        // No commit: the group will read the whole retained log (earliest), so that is its lag (D26).
        #expect(before.map(\.lag).reduce(0, +) == 30)
        // A replica between assignments asks about no partitions; librdkafka alone would refuse that.
        #expect(try await admin.highWatermarks([]).isEmpty)
        #expect(try await admin.committedOffsets(group: group, partitions: []).isEmpty)

        let probe = try ConsumerProbe(cluster, group: group, topics: [orders])
        let messages = try await probe.waitForMessages(30)
        #expect(Set(messages.map { String(decoding: $0.value, as: UTF8.self) }) == Set((0..<30).map { "m-\($0)" }))
        try probe.storeAll()
        try await probe.consumer.commit()

        let caughtUp = try await admin.consumerLag(group: group, topics: [orders])
        #expect(caughtUp.map(\.lag) == [0, 0, 0])

        try await TestKafka.publish(producer, topic: orders, count: 5, prefix: "late")
        let behind = try await admin.consumerLag(group: group, topics: [orders])
        #expect(behind.map(\.lag).reduce(0, +) == 5)

        await probe.close()
        await producer.close()
    }

    /// Records of one poll share buffers; every key and value must still come back byte-exact,
    /// across chunk boundaries, for empty values, missing keys and values larger than a chunk.
    @Test func keysAndValuesSurviveSharedBuffers() async throws {
        let kafka = try await TestKafka.shared(topics: ["mixed": 1])
        let cluster = kafka.cluster
        let mixed = kafka.topic("mixed")
        let producer = try TestKafka.producer(cluster)
        let sizes = [0, 1, 100, 3_000, KafkaMessage.chunkBytes - 10, KafkaMessage.chunkBytes + 1, 100_000, 7]
        let records = (0..<96).map { index in
            let size = sizes[index % sizes.count]
            let value = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            return KafkaRecord(
                topic: mixed, partition: 0, key: index % 3 == 0 ? nil : Array("k-\(index)".utf8), value: value)
        }
        _ = try await producer.send(records)

        let probe = try ConsumerProbe(cluster, group: kafka.group("g"), topics: [mixed])
        let messages = try await probe.waitForMessages(records.count).sorted { $0.offset < $1.offset }
        #expect(messages.count == records.count)
        for (message, record) in zip(messages, records) {
            #expect(message.key.map(Array.init) == record.key, "key of offset \(message.offset)")
            #expect(Array(message.value) == record.value, "value of offset \(message.offset)")
        }
        await probe.close()
        await producer.close()
    }

    @Test func headersKeysAndDeliveryReportsSurvive() async throws {
        let kafka = try await TestKafka.shared(topics: ["h": 2])
        let cluster = kafka.cluster
        let topic = kafka.topic("h")
        let producer = try TestKafka.producer(cluster)
        let record = KafkaRecord(
            topic: topic, key: Array("user-1".utf8), value: Array("{\"a\":1}".utf8),
            headers: [
                KafkaHeader(name: "attempt", string: "3"), KafkaHeader(name: "empty", value: nil),
                KafkaHeader(name: "bin", value: [0, 255, 1]),
            ]
        )
        let report = try await producer.send(record)
        #expect(report.topic == topic)
        #expect(report.offset == 0)

        let probe = try ConsumerProbe(cluster, group: kafka.group("g"), topics: [topic])
        let message = try #require(try await probe.waitForMessages(1).first)
        #expect(message.partition == report.partition)
        #expect(message.key.map(Array.init) == Array("user-1".utf8))
        #expect(message.headers.last(named: "attempt")?.stringValue == "3")
        #expect(message.headers.last(named: "empty") != nil)
        #expect(message.headers.last(named: "empty")?.value == nil)
        #expect(message.headers.last(named: "bin")?.value == [0, 255, 1])
        #expect(message.timestampMilliseconds != nil)
        await probe.close()
        await producer.close()
    }

    /// The poll threads are what `top -H` and `perf` show an operator; a name that never reached
    /// the OS thread left them as "oot.default-qos", indistinguishable from Swift's own pool.
    @Test func pollThreadsCarryTheirNames() async throws {
        let kafka = try await TestKafka.shared(topics: ["names": 1])
        let producer = try TestKafka.producer(kafka.cluster)
        let consumer = try KafkaConsumer(
            configuration: TestKafka.consumerConfiguration(
                kafka.cluster, group: kafka.group("g"), topics: [kafka.topic("names")]),
            logger: TestKafka.logger)
        let names = try await waitForThreads(named: ["kafka-producer", "kafka-consumer"])
        #expect(names.isSuperset(of: ["kafka-producer", "kafka-consumer"]))
        await consumer.close()
        await producer.close()
    }

    @Test func producingToAnUnknownPartitionFailsCleanly() async throws {
        let kafka = try await TestKafka.shared(topics: ["p": 1])
        let cluster = kafka.cluster
        let topic = kafka.topic("p")
        let producer = try TestKafka.producer(cluster)
        // The 2.0.2 header double free (#4627) fires exactly here when headers go as varargs.
        await #expect(throws: KafkaError.self) {
            _ = try await producer.send(
                KafkaRecord(
                    topic: topic, partition: 7, key: nil, value: [1], headers: [KafkaHeader(name: "x", string: "y")]))
        }
        let ok = try await producer.send(KafkaRecord(topic: topic, key: "k", value: "still works"))
        #expect(ok.offset == 0)
        await producer.close()
    }

    @Test func badConfigurationIsASpecificError() throws {
        var configuration = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration.additionalProperties = ["no.such.property": "1"]
        #expect(throws: KafkaError(code: .configuration, message: "")) {
            _ = try KafkaProducer(configuration: configuration, logger: TestKafka.logger)
        }
    }
}

/// The names of this process's threads once every one of `wanted` is among them (or after 5 s):
/// a thread names itself as it starts, a moment after its creator returned.
private func waitForThreads(named wanted: Set<String>) async throws -> Set<String> {
    var names: Set<String> = []
    for _ in 0..<100 {
        names = Set(
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
                try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
                    .trimmingCharacters(in: .newlines)
            })
        if names.isSuperset(of: wanted) { break }
        try await Task.sleep(for: .milliseconds(50))
    }
    return names
}
