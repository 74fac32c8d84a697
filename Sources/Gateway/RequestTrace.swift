import HTTPTypes
import Hummingbird
import Kafka
import Traces
import Tracing

extension Request {
    /// A span for one notification request: it continues a `traceparent` the request carries
    /// (Apple sends none today; a proxy or a test may), else starts a trace, and its context is
    /// what the notification's Kafka record carries into intake (decision D42).
    func traceSpan(_ tracer: any Tracer) -> any Span {
        let incoming = RequestTraceHeaders.fields.compactMap { name, field in
            headers[field].map { KafkaHeader(name: name, string: $0) }
        }
        return tracer.startSpan("notification receive", context: tracer.extracting(from: incoming), ofKind: .server)
    }
}

private enum RequestTraceHeaders {
    /// The W3C header names as HTTP field names (valid tokens, so none is dropped).
    static let fields: [(String, HTTPField.Name)] = TraceHeaders.names.sorted().compactMap { name in
        HTTPField.Name(name).map { (name, $0) }
    }
}
