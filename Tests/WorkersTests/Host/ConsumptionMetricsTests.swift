import AppStore
import Hosting
import Prometheus
import Purchases
import Testing

@testable import Workers

/// What grant's consumption answers export (decision D34): every series from the start, each
/// outcome counted under its own label, and help for every family.
@Suite struct ConsumptionMetricsTests {
    @Test func outcomesAreCountedWithHelp() {
        let registry = PrometheusCollectorRegistry()
        let metrics = ConsumptionMetrics(factory: PrometheusMetricsFactory(registry: registry))
        let before = String(decoding: OpsServer.exposition(registry), as: UTF8.self)
        #expect(before.contains(#"iap_consumption_skipped_total{reason="window_closed"} 0"#))
        #expect(before.contains(#"iap_consumption_failed_total{kind="terminal"} 0"#))

        metrics.record(
            .answered(
                ConsumptionRequest(customerConsented: true, sampleContentProvided: false, deliveryStatus: .delivered))
        )
        metrics.record(.skipped(.init(.alreadyAnswered, "")))
        metrics.record(.skipped(.init(.alreadyAnswered, "")))
        metrics.record(.retry(after: .seconds(2), reason: RetryReason(.serverError)))
        metrics.record(.failed(TerminalReason(.transactionNotFound)))

        let text = String(decoding: OpsServer.exposition(registry), as: UTF8.self)
        #expect(text.contains("iap_consumption_answered_total 1"))
        #expect(text.contains(#"iap_consumption_skipped_total{reason="already_answered"} 2"#))
        #expect(text.contains(#"iap_consumption_skipped_total{reason="no_consent"} 0"#))
        #expect(text.contains(#"iap_consumption_failed_total{kind="retry"} 1"#))
        #expect(text.contains(#"iap_consumption_failed_total{kind="terminal"} 1"#))
        #expect(MetricHelp.familiesWithoutHelp(text) == [])
    }
}
