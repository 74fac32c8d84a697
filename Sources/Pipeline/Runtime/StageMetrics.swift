import CoreMetrics
import Metrics

/// The per-stage metrics a worker exports. Created once per worker (swift-prometheus crashes
/// on conflicting re-registration, and lookups on the hot path would cost a lock each).
struct StageMetrics: Sendable {
    enum Outcome: String, CaseIterable, Sendable {
        case produced, retried, waiting, rejected, skipped, duplicate
        case deadLettered = "dead_lettered"
    }

    private let outcomes: [Outcome: Counter]
    let processing: Metrics.Timer
    let inFlight: Gauge
    let paused: Gauge
    let infrastructureErrors: Counter
    let inPlace: InPlaceRetries

    init(stage: String, factory: any MetricsFactory) {
        outcomes = Dictionary(
            uniqueKeysWithValues: Outcome.allCases.map {
                (
                    $0,
                    Counter(
                        label: "iap_stage_messages_total", dimensions: [("stage", stage), ("outcome", $0.rawValue)],
                        factory: factory)
                )
            })
        processing = Metrics.Timer(
            label: "iap_stage_processing_seconds", dimensions: [("stage", stage)], factory: factory)
        inFlight = Gauge(label: "iap_stage_in_flight", dimensions: [("stage", stage)], factory: factory)
        paused = Gauge(label: "iap_stage_paused", dimensions: [("stage", stage)], factory: factory)
        infrastructureErrors = Counter(
            label: "iap_stage_infrastructure_errors_total", dimensions: [("stage", stage)], factory: factory)
        inPlace = InPlaceRetries(stage: stage, factory: factory)
    }

    func count(_ outcome: Outcome, _ records: Int = 1) {
        if records > 0 { outcomes[outcome]?.increment(by: records) }
    }
}
