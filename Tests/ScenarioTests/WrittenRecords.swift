import Foundation
import Kafka
import LocalStack
import PipelineHarness
import TestSupport
import Testing
import Topology

/// Every record a run left on the topics the pipeline file declares, checked against the
/// topic's JSON Schema in `docs/schemas` (decision D40): what the workers wrote must validate,
/// and of what was published to an input topic exactly the records the pipeline refused as
/// `malformed_event` or `unsupported_schema` may fail it.
enum WrittenRecords {
    /// The input topics: written by backends, the gateway and reconcile, not by the stages.
    static let inputTopics: Set<String> = ["iap.purchases", "iap.notifications", "iap.orders"]

    /// Returns how many records of each topic were checked, and how many input records the
    /// pipeline refused for their shape.
    static func checkAgainstSchemas(_ stack: LocalStack) async throws -> (checked: [String: Int], refused: Int) {
        let topics = try PipelineFile.load(path: stack.endpoints.pipeline).topics.map(\.name)
        let records = try await Self.read(stack, topics: topics)
        let refused = Self.refusedAsMalformed(records["iap.rejected"] ?? [])
        var checked: [String: Int] = [:]
        for topic in topics {
            let written = (records[topic] ?? []).filter { !$0.value.isEmpty }  // no tombstones
            let violations = try await TopicSchemas.violations(of: written.map { Array($0.value) }, topic: topic)
            checked[topic] = written.count
            for (index, record) in written.enumerated() {
                let problems = violations[index]
                let wasRefused = refused.contains(Self.position(record))
                if Self.inputTopics.contains(topic) && wasRefused {
                    #expect(problems != nil, "\(topic) \(Self.describe(record)): refused, yet it meets the schema")
                } else if let problems {
                    Issue.record("\(topic) \(Self.describe(record)) breaks its schema: \(problems)")
                }
            }
        }
        return (checked, refused.count)
    }

    /// Records of `topics` from the beginning, at least up to the end offsets seen when called.
    static func read(_ stack: LocalStack, topics: [String]) async throws -> [String: [KafkaMessage]] {
        let admin = try KafkaAdmin(bootstrapServers: stack.endpoints.kafka, logger: PipelineHarness.logger)
        let partitions = try await admin.partitionCounts(of: topics).flatMap { topic, count in
            (0..<count).map { TopicPartition(topic, $0) }
        }
        let ends = try await admin.watermarks(partitions)
        let expected = ends.values.reduce(0) { $0 + Int($1.high - $1.low) }
        let observer = try TopicObserver(
            bootstrap: stack.endpoints.kafka, topics: topics, logger: PipelineHarness.logger)
        do {
            _ = try await eventually(
                "the \(expected) records of the run", timeout: .seconds(180), every: .milliseconds(200)
            ) {
                observer.records.count >= expected ? true : nil
            }
        } catch {
            await observer.close()
            throw error
        }
        let records = observer.records
        await observer.close()
        return Dictionary(grouping: records, by: \.topic)
    }

    /// Where the records refused for their shape came from (the reject record's source headers).
    static func refusedAsMalformed(_ rejected: [KafkaMessage]) -> Set<String> {
        Set(
            rejected.compactMap { record in
                let headers = Dictionary(
                    record.headers.map { ($0.name, String(decoding: $0.value ?? [], as: UTF8.self)) },
                    uniquingKeysWith: { first, _ in first })
                guard ["malformed_event", "unsupported_schema"].contains(headers["reject_reason"]),
                    let topic = headers["source_topic"], let partition = headers["source_partition"],
                    let offset = headers["source_offset"]
                else { return nil }
                return "\(topic)/\(partition)@\(offset)"
            })
    }

    static func position(_ record: KafkaMessage) -> String { "\(record.topic)/\(record.partition)@\(record.offset)" }

    static func describe(_ record: KafkaMessage) -> String {
        "\(Self.position(record)): \(String(decoding: record.value.prefix(400), as: UTF8.self))"
    }
}
