import Kafka
import Logging
import Synchronization
import Testing
import Traces

@testable import Pipeline

@Suite(.timeLimit(.minutes(2))) struct RecordLogTests {
    /// Keeps each logged line's level, message and metadata.
    final class Captured: Sendable {
        let entries = Mutex<[(Logger.Level, String, Logger.Metadata)]>([])
    }

    struct CapturingHandler: LogHandler {
        let captured: Captured
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            captured.entries.withLock {
                $0.append((event.level, event.message.description, metadata.merging(event.metadata ?? [:]) { $1 }))
            }
        }
    }

    static func log(_ logger: Logger, _ record: KafkaMessage) -> RecordLog {
        RecordLog(
            logger: logger, record: record,
            trace: RecordTrace(
                stage: "grant", operation: RecordTrace.operationName(stage: "grant"), group: "iap-grant",
                record: record, tracer: PropagatingTracer()))
    }

    @Test func linesCarryWhereTheRecordCameFromItsBusinessIdAndTraceId() {
        let captured = Captured()
        var logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
        logger[metadataKey: "stage"] = "grant"
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        var log = Self.log(
            logger,
            KafkaMessage(
                topic: "iap.matched", partition: 3, offset: 41, key: nil, value: [],
                headers: [KafkaHeader(name: "traceparent", string: traceparent)]))
        log.info("before the business id is known")
        log.businessId = "2000000042"
        log.warning("retry scheduled", metadata: ["attempt": "2"])
        log.debug("below the level: not logged")

        let entries = captured.entries.withLock { $0 }
        #expect(entries.map(\.1) == ["before the business id is known", "retry scheduled"])
        #expect(entries[0].2["business_id"] == nil)
        let tags = entries[1].2.mapValues(\.description)
        #expect(
            tags == [
                "stage": "grant", "topic": "iap.matched", "partition": "3", "offset": "41", "business_id": "2000000042",
                "attempt": "2", "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
            ])
        // The logger itself was not changed per record.
        #expect(logger[metadataKey: "topic"] == nil)
    }

    @Test func loggedValuesAreBoundedExcerpts() {
        let captured = Captured()
        let logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
        let log = Self.log(logger, KafkaMessage(topic: "iap.purchase.v1", partition: 0, offset: 7, key: nil, value: []))
        log.info(
            "rejected", metadata: ["detail": "\(String(repeating: "x", count: 300_000))", "reason": "malformed_event"])

        let tags = captured.entries.withLock { $0 }[0].2.mapValues(\.description)
        #expect(tags["detail"] == String(repeating: "x", count: Excerpt.detailLimit) + "…(300000 bytes)")
        #expect(tags["reason"] == "malformed_event")
    }
}
