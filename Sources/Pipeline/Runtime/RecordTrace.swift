import Kafka
import Traces
import Tracing

/// One record's span, and the trace headers of every record its processing writes (decision D42).
///
/// The span continues the trace of the record's `traceparent` (a new trace when it has none or a
/// malformed one). Outputs, rejections, dead letters and the re-published copies of retries and
/// waits carry this span's context in place of their input's, so each hop names its own span
/// and a retried or waiting record stays in its trace.
///
/// Attributes are set only when the span records (an exporting tracer): with the propagating
/// tracer a record costs two small header strings, not a dictionary of attributes.
struct RecordTrace: Sendable {
    let span: any Span
    let tracer: any Tracer

    /// - Parameter operation: the span's name, `<stage> process` (``operationName(stage:)``),
    ///   made once per stage rather than per record.
    init(stage: String, operation: String, group: String, record: KafkaMessage, tracer: any Tracer) {
        self.tracer = tracer
        span = tracer.startSpan(operation, context: tracer.extracting(from: record.headers), ofKind: .consumer)
        if span.isRecording {
            span.attributes["messaging.system"] = "kafka"
            span.attributes["messaging.operation.type"] = "process"
            span.attributes["messaging.destination.name"] = record.topic
            span.attributes["messaging.destination.partition.id"] = String(record.partition)
            span.attributes["messaging.kafka.offset"] = Int(record.offset)
            span.attributes["messaging.consumer.group.name"] = group
            span.attributes["iap.stage"] = stage
        }
    }

    static func operationName(stage: String) -> String { "\(stage) process" }

    /// The trace id for log lines, computed only when a line is logged.
    var traceId: String? {
        tracer.injecting(span.context, into: []).last(named: TraceHeaders.traceparent)?.stringValue
            .flatMap(TraceHeaders.traceId(of:)).map(String.init)
    }

    func stamped(_ record: KafkaRecord) -> KafkaRecord {
        var record = record
        record.headers = tracer.injecting(span.context, into: record.headers)
        return record
    }

    func stamped(_ records: [KafkaRecord]) -> [KafkaRecord] {
        guard !records.isEmpty else { return records }
        let trace = tracer.injecting(span.context, into: [])
        return records.map { record in
            var record = record
            if record.headers.isEmpty {
                // Most outputs carry no header of their own: they share the one array.
                record.headers = trace
            } else {
                record.headers.removeAll { TraceHeaders.names.contains($0.name) }
                record.headers += trace
            }
            return record
        }
    }

    /// The input record as a retry or wait re-publishes it: in this trace, under this span.
    func stamped(_ message: KafkaMessage) -> KafkaMessage {
        var message = message
        message.headers = tracer.injecting(span.context, into: message.headers)
        return message
    }

    func noteBusinessId(_ id: String) {
        if span.isRecording { span.attributes["iap.business_id"] = id }
    }

    /// What became of the record; `failure` marks the span as an error (rejected, dead-lettered).
    func noteOutcome(_ outcome: String, failure: String? = nil) {
        guard span.isRecording else { return }
        span.attributes["iap.outcome"] = outcome
        if let failure { span.setStatus(SpanStatus(code: .error, message: failure)) }
    }

    func recordError(_ error: any Error) {
        if span.isRecording { span.recordError(error) }
    }

    func end() { span.end() }
}
