import CoreMetrics
public import Prometheus
import Purchases
import WorkerCommon

/// What the confirm stage exports (docs/operations.md, "Confirming to Apple"):
/// `iap_apple_confirmations_total{action, outcome}`, `action` `finish_transaction` or
/// `set_app_account_token`, `outcome` `done` (Apple accepted), `refused` (Apple refused for
/// good; logged) or `retry` (the record is tried again).
public final class ConfirmMetrics: Sendable {
    private let families: MetricFamilies
    static let actions = ["finish_transaction", "set_app_account_token"]

    public init(factory: PrometheusMetricsFactory) {
        self.families = MetricFamilies(factory: factory)
        // Every series exists from the start at 0, so a first increment is an increase.
        for action in Self.actions {
            for outcome in ["done", "refused", "retry"] { _ = counter(action, outcome) }
        }
    }

    func record(_ outcome: ConfirmOutcome, planned: [ConfirmAction]) {
        switch outcome {
        case .done(let done, let refused):
            for action in done { counter(action.name, "done").increment() }
            for refusal in refused { counter(refusal.action.name, "refused").increment() }
        case .retry:
            for action in Set(planned.map(\.name)) { counter(action, "retry").increment() }
        case .wait: break  // counted by the gate's waits and the waiting gauges
        }
    }

    private func counter(_ action: String, _ outcome: String) -> CoreMetrics.Counter {
        families.counter("iap_apple_confirmations_total", [("action", action), ("outcome", outcome)])
    }
}
