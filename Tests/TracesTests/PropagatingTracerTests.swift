import Kafka
import Testing
import Traces
import Tracing

/// The W3C round trip over Kafka headers, and what a malformed header does: ignored, so the span
/// starts a trace of its own; never a crash.
@Suite struct PropagatingTracerTests {
    let tracer = PropagatingTracer()
    static let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    func traceparent(_ headers: [KafkaHeader]) -> String? {
        headers.last(named: TraceHeaders.traceparent)?.stringValue
    }

    /// A child span of what `headers` carry, injected into fresh headers.
    func hop(_ headers: [KafkaHeader]) -> [KafkaHeader] {
        let span = tracer.startSpan("hop", context: tracer.extracting(from: headers))
        return tracer.injecting(span.context, into: [KafkaHeader(name: "other", string: "kept")])
    }

    @Test func aHopKeepsTheTraceIdAndFlagsAndNamesItsOwnSpan() throws {
        let out = hop([KafkaHeader(name: TraceHeaders.traceparent, string: Self.parent)])
        let child = try #require(traceparent(out))
        #expect(child.count == 55)
        #expect(child.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-"))
        #expect(child.hasSuffix("-01"))
        #expect(!child.contains("00f067aa0ba902b7"), "a new span id per hop")
        #expect(out.map(\.name) == ["other", "traceparent"])
        #expect(TraceHeaders.traceId(of: child) == "4bf92f3577b34da6a3ce929d0e0e4736")
        // And the next hop continues the same trace.
        #expect(traceparent(hop(out)).flatMap(TraceHeaders.traceId) == "4bf92f3577b34da6a3ce929d0e0e4736")
    }

    @Test func injectingReplacesTheInputsTraceHeaders() throws {
        let span = tracer.startSpan("hop", context: .topLevel)
        let headers = tracer.injecting(
            span.context,
            into: [
                KafkaHeader(name: TraceHeaders.traceparent, string: Self.parent),
                KafkaHeader(name: TraceHeaders.tracestate, string: "vendor=stale"),
            ])
        #expect(headers.filter { $0.name == TraceHeaders.traceparent }.count == 1)
        #expect(traceparent(headers) != Self.parent)
        #expect(headers.last(named: TraceHeaders.tracestate) == nil, "the new trace has no state")
    }

    @Test func tracestateTravelsWithItsTraceparentAndABadOneIsDroppedAlone() throws {
        let withState = hop([
            KafkaHeader(name: TraceHeaders.traceparent, string: Self.parent),
            KafkaHeader(name: TraceHeaders.tracestate, string: "vendor=value"),
        ])
        #expect(withState.last(named: TraceHeaders.tracestate)?.stringValue == "vendor=value")

        let badState = hop([
            KafkaHeader(name: TraceHeaders.traceparent, string: Self.parent),
            KafkaHeader(name: TraceHeaders.tracestate, string: "Vendor=uppercase is not a vendor"),
        ])
        #expect(traceparent(badState).flatMap(TraceHeaders.traceId) == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(badState.last(named: TraceHeaders.tracestate) == nil)
    }

    @Test(arguments: [
        "", "garbage", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",  // too short
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // a version this parser does not know
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero span id
        "00-4BF92F3577B34DA6A3CE929D0E0E47zz-00f067aa0ba902b7-01",  // not hex
        "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",  // wrong delimiters
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0\u{e9}",  // non-ASCII, 55 characters
    ])
    func aMalformedTraceparentIsIgnoredAndStartsANewTrace(_ malformed: String) throws {
        let out = hop([KafkaHeader(name: TraceHeaders.traceparent, string: malformed)])
        let started = try #require(traceparent(out))
        let traceId = try #require(TraceHeaders.traceId(of: started))
        #expect(!malformed.contains(traceId))
        #expect(started.hasSuffix("-01"), "a new trace is marked sampled")
    }

    @Test func aHeaderWithNoValueOrNoHeaderStartsATrace() throws {
        for headers in [[], [KafkaHeader(name: TraceHeaders.traceparent, value: nil)]] {
            let first = try #require(traceparent(hop(headers)).flatMap(TraceHeaders.traceId))
            let second = try #require(traceparent(hop(headers)).flatMap(TraceHeaders.traceId))
            #expect(first != second, "each record without a trace starts its own")
        }
    }

    @Test func aSpanRecordsNothing() {
        let span = tracer.startSpan("hop", context: .topLevel)
        span.attributes["iap.stage"] = "intake"
        #expect(!span.isRecording)
        #expect(span.attributes.isEmpty)
    }
}
