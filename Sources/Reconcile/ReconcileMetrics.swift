import AppStoreModels
import Basics
import CoreMetrics
public import Prometheus
import WorkerCommon

/// What `iap-reconcile` exports (docs/operations.md, "Reconcile"):
/// - `iap_reconcile_pages_total{bundle_id,environment}`: notification history pages published;
/// - `iap_reconcile_notifications_published_total{bundle_id,environment}`: notifications republished;
/// - `iap_reconcile_subscriptions_swept_total{result}`: subscriptions asked about (`published`,
///   `not_found`);
/// - `iap_reconcile_runs_total{outcome}`: runs `completed` or `failed`;
/// - `iap_reconcile_checkpoint_age_seconds{bundle_id,environment}`: how far behind now the next
///   window starts, after each run (the alert watches it grow).
public final class ReconcileMetrics: Sendable {
    private let families: MetricFamilies

    public init(factory: PrometheusMetricsFactory, scopes: [ReconcileScope]) {
        self.families = MetricFamilies(factory: factory)
        for scope in scopes {
            _ = counter("iap_reconcile_pages_total", Self.dimensions(scope))
            _ = counter("iap_reconcile_notifications_published_total", Self.dimensions(scope))
        }
        for result in ["published", "not_found"] {
            _ = counter("iap_reconcile_subscriptions_swept_total", [("result", result)])
        }
        for outcome in ["completed", "failed"] { _ = counter("iap_reconcile_runs_total", [("outcome", outcome)]) }
    }

    public func record(_ progress: ReconcileProgress, scopes: [ReconcileScope]) {
        switch progress {
        case .page(let name, let notifications):
            guard let scope = scopes.first(where: { $0.name == name }) else { return }
            counter("iap_reconcile_pages_total", Self.dimensions(scope)).increment()
            counter("iap_reconcile_notifications_published_total", Self.dimensions(scope)).increment(by: notifications)
        case .subscription(let published):
            counter("iap_reconcile_subscriptions_swept_total", [("result", published ? "published" : "not_found")])
                .increment()
        }
    }

    public func countRun(failed: Bool) {
        counter("iap_reconcile_runs_total", [("outcome", failed ? "failed" : "completed")]).increment()
    }

    public func setCheckpointAge(_ age: Duration, of scope: ReconcileScope) {
        families.gauge("iap_reconcile_checkpoint_age_seconds", Self.dimensions(scope))
            .record(Double(age.milliseconds(rounding: .towardZero)) / 1000)
    }

    private static func dimensions(_ scope: ReconcileScope) -> [(String, String)] {
        [("bundle_id", scope.bundleId), ("environment", scope.environment.rawValue)]
    }

    private func counter(_ name: String, _ dimensions: [(String, String)]) -> CoreMetrics.Counter {
        families.counter(name, dimensions)
    }
}
