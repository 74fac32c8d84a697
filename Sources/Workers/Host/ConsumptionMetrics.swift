import CoreMetrics
public import Prometheus
import Purchases
import WorkerCommon

/// What grant's consumption answers export (docs/operations.md, "Consumption requests"):
/// - `iap_consumption_answered_total`: answers Apple accepted (202);
/// - `iap_consumption_skipped_total{reason}`: requests not answered on purpose
///   (``ConsumptionSkipReason/Code``);
/// - `iap_consumption_failed_total{kind}`: attempts Apple did not accept, `retry` (the record
///   is retried) or `terminal` (Apple refused the answer for good).
public final class ConsumptionMetrics: Sendable {
    private let families: MetricFamilies

    public init(factory: PrometheusMetricsFactory) {
        self.families = MetricFamilies(factory: factory)
        // Every series exists from the start at 0, so a first increment is an increase.
        _ = counter("iap_consumption_answered_total", nil)
        for code in ConsumptionSkipReason.Code.all {
            _ = counter("iap_consumption_skipped_total", ("reason", code.rawValue))
        }
        for kind in ["retry", "terminal"] { _ = counter("iap_consumption_failed_total", ("kind", kind)) }
    }

    func record(_ outcome: ConsumptionOutcome) {
        switch outcome {
        case .answered: counter("iap_consumption_answered_total", nil).increment()
        case .skipped(let reason):
            counter("iap_consumption_skipped_total", ("reason", reason.code.rawValue)).increment()
        case .retry: counter("iap_consumption_failed_total", ("kind", "retry")).increment()
        case .wait: break  // counted by the gate's waits and the waiting gauges
        case .failed: counter("iap_consumption_failed_total", ("kind", "terminal")).increment()
        }
    }

    private func counter(_ name: String, _ dimension: (String, String)?) -> CoreMetrics.Counter {
        families.counter(name, dimension.map { [$0] } ?? [])
    }
}
