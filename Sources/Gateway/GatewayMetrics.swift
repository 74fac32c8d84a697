import CoreMetrics
import Metrics
import Synchronization

/// The gateway's metrics (docs/operations.md):
/// - `iap_gateway_requests_total{status}`: every answer by HTTP status (404s and 405s included);
/// - `iap_gateway_kafka_write_seconds{outcome}`: histogram of the wait for Kafka's acknowledgement,
///   `outcome` = `acknowledged` | `failed`;
/// - `iap_gateway_unkeyed_notifications_total`: notifications written without a key because
///   their payload did not decode (a sign of a non-Apple sender or a format change).
///
/// Created once per process: swift-prometheus crashes on conflicting re-registration.
final class GatewayMetrics: Sendable {
    private let factory: any MetricsFactory
    private let requests: Mutex<[Int: Counter]>
    let writeAcknowledged: Metrics.Timer
    let writeFailed: Metrics.Timer
    let unkeyed: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        let common = [200, 400, 404, 503]
        requests = Mutex(Dictionary(uniqueKeysWithValues: common.map { ($0, Self.requestCounter($0, factory)) }))
        writeAcknowledged = Metrics.Timer(
            label: "iap_gateway_kafka_write_seconds", dimensions: [("outcome", "acknowledged")], factory: factory)
        writeFailed = Metrics.Timer(
            label: "iap_gateway_kafka_write_seconds", dimensions: [("outcome", "failed")], factory: factory)
        unkeyed = Counter(label: "iap_gateway_unkeyed_notifications_total", factory: factory)
    }

    func countRequest(status: Int) {
        let factory = factory
        requests.withLock { counters in
            if let counter = counters[status] { return counter }
            let counter = Self.requestCounter(status, factory)
            counters[status] = counter
            return counter
        }.increment()
    }

    private static func requestCounter(_ status: Int, _ factory: any MetricsFactory) -> Counter {
        Counter(label: "iap_gateway_requests_total", dimensions: [("status", String(status))], factory: factory)
    }
}
