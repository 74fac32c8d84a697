/// The W3C Trace Context headers (https://www.w3.org/TR/trace-context/) as the pipeline carries
/// them on Kafka records and reads them from HTTP requests: part of the event contract
/// (docs/events.md), so a backend's own tracing continues across the pipeline (decision D42).
public enum TraceHeaders {
    /// `00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`, version 00 only.
    public static let traceparent = "traceparent"
    /// Vendor entries, passed on unchanged beside a valid `traceparent`.
    public static let tracestate = "tracestate"

    /// Both names, for code that replaces a record's trace headers.
    public static let names: Set<String> = [traceparent, tracestate]

    /// The trace id of a well-formed version-00 `traceparent`, for log metadata; nil otherwise.
    ///
    /// Reads the fixed positions only: logs want the id, not a parse (the tracer parses).
    public static func traceId(of traceparent: String) -> Substring? {
        let utf8 = traceparent.utf8
        guard utf8.count == 55, utf8.starts(with: "00-".utf8) else { return nil }
        let start = traceparent.index(traceparent.startIndex, offsetBy: 3)
        return traceparent[start..<traceparent.index(start, offsetBy: 32)]
    }
}
