public import CoreMetrics
public import Prometheus
import Synchronization

/// The counters and gauges of one exporter (Apple calls, consumption answers, reconcile), each
/// made once per name and labels and found again under a lock, so the hot path never goes
/// through the factory's registry.
public final class MetricFamilies: Sendable {
    private let factory: PrometheusMetricsFactory
    private let counters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let gauges = Mutex<[String: CoreMetrics.Gauge]>([:])

    public init(factory: PrometheusMetricsFactory) {
        self.factory = factory
    }

    public func counter(_ name: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        let factory = factory
        return counters.withLock { counters in
            let key = Self.key(name, dimensions)
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory)
            counters[key] = counter
            return counter
        }
    }

    public func gauge(_ name: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Gauge {
        let factory = factory
        return gauges.withLock { gauges in
            let key = Self.key(name, dimensions)
            if let gauge = gauges[key] { return gauge }
            let gauge = CoreMetrics.Gauge(label: name, dimensions: dimensions, factory: factory)
            gauges[key] = gauge
            return gauge
        }
    }

    private static func key(_ name: String, _ dimensions: [(String, String)]) -> String {
        ([name] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }
}
