public import Tracing
public import W3CTraceContext

/// A tracer that carries W3C trace context and records nothing: each span gets its own span id
/// under its parent's trace id (or a new trace when there is no valid parent), so the
/// `traceparent` a stage writes names its own hop, and logs correlate by trace id without an
/// exporter (decision D42).
///
/// Every process uses it (the build has no exporter, D42): propagation is part of the event
/// contract, not an option. A malformed `traceparent` is ignored (the span starts a
/// new trace), as the W3C specification asks; an invalid `tracestate` beside a valid
/// `traceparent` is dropped alone.
public struct PropagatingTracer: Tracer {
    public typealias Span = PropagatingSpan

    private let ids: TraceIDGenerator

    public init() {
        self.ids = TraceIDGenerator()
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> PropagatingSpan {
        var context = context()
        let parent = context.traceContext
        var ids = self.ids  // `random(using:)` takes the generator inout; a class shares its state
        context.traceContext = TraceContext(
            traceID: parent?.traceID ?? .random(using: &ids), spanID: .random(using: &ids),
            // A new trace is marked sampled, so a backend's parent-based sampler keeps it.
            flags: parent?.flags ?? .sampled, state: parent?.state ?? TraceState())
        return PropagatingSpan(operationName: operationName, context: context)
    }

    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        guard let traceparent = extractor.extract(key: TraceHeaders.traceparent, from: carrier) else { return }
        let tracestate = extractor.extract(key: TraceHeaders.tracestate, from: carrier)
        guard
            let trace = (try? TraceContext(traceParentHeaderValue: traceparent, traceStateHeaderValue: tracestate))
                ?? (try? TraceContext(traceParentHeaderValue: traceparent))
        else { return }
        context.traceContext = trace
    }

    public func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let trace = context.traceContext else { return }
        injector.inject(trace.traceParentHeaderValue, forKey: TraceHeaders.traceparent, into: &carrier)
        if let state = trace.traceStateHeaderValue {
            injector.inject(state, forKey: TraceHeaders.tracestate, into: &carrier)
        }
    }

    public func forceFlush() {}
}

/// A span of ``PropagatingTracer``: its context names the hop; attributes, events, errors and
/// its end go nowhere (`isRecording` is false, so callers skip building attributes).
public struct PropagatingSpan: Span {
    public let context: ServiceContext
    private let name: String

    init(operationName: String, context: ServiceContext) {
        self.name = operationName
        self.context = context
    }

    public var operationName: String {
        get { name }
        nonmutating set {}
    }

    public var attributes: SpanAttributes {
        get { [:] }
        nonmutating set {}
    }

    public var isRecording: Bool { false }

    public func setStatus(_ status: SpanStatus) {}
    public func addEvent(_ event: SpanEvent) {}
    public func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {}
    public func addLink(_ link: SpanLink) {}
    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {}
}

extension ServiceContext {
    /// The W3C trace context of ``PropagatingTracer``'s spans and of what it extracted.
    var traceContext: TraceContext? {
        get { self[TraceContextKey.self] }
        set { self[TraceContextKey.self] = newValue }
    }
}

private enum TraceContextKey: ServiceContextKey {
    typealias Value = TraceContext
}
