public import Instrumentation
public import Kafka

/// Reads trace context from a record's headers: the last header of a name wins, as everywhere
/// in the pipeline (``Swift/Array/last(named:)``).
public struct KafkaHeaderExtractor: Extractor {
    public init() {}

    public func extract(key: String, from carrier: [KafkaHeader]) -> String? {
        carrier.last(named: key)?.stringValue
    }
}

/// Writes trace context into a record's headers, replacing any header of the same name: a
/// record a stage produces from one it read carries the stage's span, not its input's.
public struct KafkaHeaderInjector: Injector {
    public init() {}

    public func inject(_ value: String, forKey key: String, into carrier: inout [KafkaHeader]) {
        carrier.removeAll { $0.name == key }
        carrier.append(KafkaHeader(name: key, string: value))
    }
}

extension Instrument {
    /// `headers` with `context`'s trace headers in place of any they had.
    public func injecting(_ context: ServiceContext, into headers: [KafkaHeader]) -> [KafkaHeader] {
        var headers = headers
        headers.removeAll { TraceHeaders.names.contains($0.name) }
        inject(context, into: &headers, using: KafkaHeaderInjector())
        return headers
    }

    /// The context a record's headers carry (empty when they carry none, or a malformed one).
    public func extracting(from headers: [KafkaHeader]) -> ServiceContext {
        var context = ServiceContext.topLevel
        extract(headers, into: &context, using: KafkaHeaderExtractor())
        return context
    }
}
