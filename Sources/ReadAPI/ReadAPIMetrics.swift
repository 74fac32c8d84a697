import Basics
public import CoreMetrics
public import Logging
import Synchronization

/// What `iap-api` counts (`/metrics` on its ops port): answers by route and status with their
/// latency, and the distinct products the catalog does not list that customers were found to
/// hold (docs/catalog.md: each its own entitlement; counted and warned about once per process).
public final class ReadAPIMetrics: Sendable {
    private let factory: any MetricsFactory
    private let logger: Logger
    private let warned = Mutex<Set<String>>([])
    /// Handles by route and status: made once, since making one is a registry lookup under a lock.
    private let handles = Mutex<[String: (Counter, Timer)]>([:])

    public init(factory: any MetricsFactory, logger: Logger) {
        self.factory = factory
        self.logger = logger
    }

    func count(route: String, status: Int, elapsed: Duration) {
        let (counter, timer) = handles.withLock { handles in
            let key = "\(route) \(status)"
            if let made = handles[key] { return made }
            let made = (
                Counter(
                    label: "iap_api_requests_total", dimensions: [("route", route), ("status", String(status))],
                    factory: factory),
                Timer(label: "iap_api_request_seconds", dimensions: [("route", route)], factory: factory)
            )
            handles[key] = made
            return made
        }
        counter.increment()
        timer.recordNanoseconds(elapsed.nanoseconds)
    }

    /// Counts a product once per process and app, and warns once.
    func noteUnlisted(bundleId: String, productId: String) {
        let first = warned.withLock { $0.insert("\(bundleId)|\(productId)").inserted }
        if first {
            Counter(
                label: "iap_catalog_unlisted_products_total", dimensions: [("bundle_id", bundleId)], factory: factory
            ).increment()
            logger.warning(
                "a customer holds a product the catalog does not list; it counts as its own entitlement",
                metadata: ["bundle_id": "\(bundleId)", "product_id": "\(productId)"])
        }
    }
}
