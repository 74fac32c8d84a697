public import AppStore
import Basics
import CoreMetrics
import Foundation
import Metrics
public import Prometheus
public import Purchases
import Synchronization

/// What verify's calls to Apple export (docs/operations.md, "Metrics"):
/// - `iap_apple_request_duration_seconds{endpoint,status}`: every HTTP exchange with Apple, by
///   endpoint (`get_transaction_info`, `get_transaction_history`, `verify_receipt`, ...) and
///   answer (the HTTP status, or `timeout` / `transport` when none came);
/// - `iap_apple_rate_limit_waits_total{endpoint}`: calls the shared limiter held back;
/// - `iap_apple_configuration_errors_total{reason}`: Apple refusing our credentials or request
///   (`authentication`, `shared_secret`, `request_rejected`; decision D8's alert).
/// - `iap_apple_ocsp_offline_accepts_total`: chains accepted on their offline checks because the
///   OCSP responder could not be asked (`IAP_APPLE_OCSP_UNREACHABLE=accept-offline`, D30).
///
/// One per process (swift-prometheus' families are per registry; lookups take a lock).
public final class AppleCallMetrics: Sendable {
    /// Apple answers in ~100–500 ms, verifyReceipt and bad days slower; the request timeout
    /// (`IAP_APPLE_TIMEOUT`, 10 s by default) bounds the top.
    public static let durationBuckets: [Duration] = [
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(300),
        .milliseconds(500), .milliseconds(750), .seconds(1), .milliseconds(1500), .seconds(2), .seconds(3),
        .seconds(5), .seconds(10), .seconds(30),
    ]
    static let durationName = "iap_apple_request_duration_seconds"

    private let factory: PrometheusMetricsFactory
    private let timers = Mutex<[String: Metrics.Timer]>([:])
    private let families: MetricFamilies

    public init(factory: PrometheusMetricsFactory) {
        var factory = factory
        factory.durationHistogramBuckets[Self.durationName] = Self.durationBuckets
        self.factory = factory
        self.families = MetricFamilies(factory: factory)
        // The counters the alerts watch exist from the start at 0, so their first increment
        // is an increase Prometheus sees.
        for endpoint in [AppleCall.Endpoint.transactionInfo, .verifyReceipt] {
            _ = counter("iap_apple_rate_limit_waits_total", ("endpoint", Self.label(endpoint)))
        }
        for code in [RetryReason.Code.authentication, .sharedSecret, .requestRejected] {
            _ = counter("iap_apple_configuration_errors_total", ("reason", code.rawValue))
        }
        _ = counter(Self.ocspOfflineAcceptsName)
    }

    static let ocspOfflineAcceptsName = "iap_apple_ocsp_offline_accepts_total"

    /// A chain was accepted without its revocation status (the responder was unreachable).
    @Sendable public func countOCSPOfflineAccept() {
        counter(Self.ocspOfflineAcceptsName).increment()
    }

    /// Records one exchange: `status` is the HTTP status or `timeout` / `transport`.
    public func recordRequest(endpoint: String, status: String, duration: Duration) {
        let factory = factory
        timers.withLock { timers in
            let key = endpoint + " " + status
            if let timer = timers[key] { return timer }
            let timer = Metrics.Timer(
                label: Self.durationName, dimensions: [("endpoint", endpoint), ("status", status)], factory: factory)
            timers[key] = timer
            return timer
        }.recordNanoseconds(duration.nanoseconds)
    }

    func countRateLimitWait(_ endpoint: AppleCall.Endpoint) {
        counter("iap_apple_rate_limit_waits_total", ("endpoint", Self.label(endpoint))).increment()
    }

    /// Counts `reason` when it is a configuration error (D8); other reasons are not counted.
    public func countIfConfigurationError(_ reason: RetryReason) {
        guard reason.isConfigurationError else { return }
        counter("iap_apple_configuration_errors_total", ("reason", reason.code.rawValue)).increment()
    }

    private func counter(_ name: String, _ dimension: (String, String)? = nil) -> CoreMetrics.Counter {
        families.counter(name, dimension.map { [$0] } ?? [])
    }

    /// The gate's endpoint in the histogram's spelling.
    static func label(_ endpoint: AppleCall.Endpoint) -> String {
        switch endpoint {
        case .transactionInfo: "get_transaction_info"
        case .verifyReceipt: "verify_receipt"
        case .consumption: "send_consumption_information"
        case .notificationHistory: "get_notification_history"
        case .subscriptionStatuses: "get_all_subscription_statuses"
        case .finishTransaction: "finish_transaction"
        case .setAppAccountToken: "set_app_account_token"
        case .appTransactionInfo: "get_app_transaction_info"
        case .extendRenewalDate: "extend_subscription_renewal_date"
        case .massExtension: "extend_renewal_dates_for_all_active_subscribers"
        }
    }

    /// The endpoint a request goes to, named after Apple's documentation (`other` for a path
    /// ``routes`` does not know).
    static func endpoint(of request: AppleHTTPRequest) -> String {
        var url = request.url
        return url.withUTF8 { url in routes.first { contains(url, $0.path) }?.name } ?? "other"
    }

    /// Path fragments and their endpoints, the more specific of two overlapping ones first.
    private static let routes: [(path: [UInt8], name: String)] = [
        ("/inApps/v2/transactions/consumption/", "send_consumption_information"),
        ("/inApps/v1/transactions/consumption/", "send_consumption_information"),
        ("/inApps/v1/transactions/appTransactions/", "get_app_transaction_info"),
        ("/finish", "finish_transaction"),
        ("/appAccountToken", "set_app_account_token"),
        ("/inApps/v1/subscriptions/extend/mass/", "get_status_of_subscription_renewal_date_extensions"),
        ("/inApps/v1/subscriptions/extend/mass", "extend_renewal_dates_for_all_active_subscribers"),
        ("/inApps/v1/subscriptions/extend/", "extend_subscription_renewal_date"),
        ("/inApps/v1/transactions/", "get_transaction_info"),
        ("/inApps/v2/history/", "get_transaction_history"),
        ("/inApps/v1/history/", "get_transaction_history"),
        ("/inApps/v1/subscriptions/", "get_all_subscription_statuses"),
        ("/inApps/v1/lookup/", "lookup_order"),
        ("/inApps/v2/refund/lookup/", "get_refund_history"),
        ("/inApps/v1/notifications/history", "get_notification_history"),
        ("/inApps/v1/notifications/test/", "get_test_notification_status"),
        ("/inApps/v1/notifications/test", "request_test_notification"),
        ("/verifyReceipt", "verify_receipt"),
    ].map { (Array($0.0.utf8), $0.1) }

    /// A byte search: `String.contains(_:)` (`_StringProcessing`'s generic searcher) over the
    /// table cost 8 % of the confirm stage's CPU, one classification per Apple call, and a
    /// generic `elementsEqual` of slices as much again (metadata lookups and retains per try).
    private static func contains(_ text: UnsafeBufferPointer<UInt8>, _ fragment: [UInt8]) -> Bool {
        guard let base = text.baseAddress, !fragment.isEmpty, fragment.count <= text.count else { return false }
        return fragment.withUnsafeBufferPointer { fragment in
            for start in 0...(text.count - fragment.count) where text[start] == fragment[0] {
                if memcmp(base + start, fragment.baseAddress!, fragment.count) == 0 { return true }
            }
            return false
        }
    }
}

/// An ``AppleHTTPExecutor`` that times every exchange into ``AppleCallMetrics``.
public struct MeteredAppleHTTPExecutor: AppleHTTPExecutor {
    private let base: any AppleHTTPExecutor
    private let metrics: AppleCallMetrics

    public init(_ base: any AppleHTTPExecutor, metrics: AppleCallMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func execute(_ request: AppleHTTPRequest, timeout: Duration) async throws(TransportFailure)
        -> AppleHTTPResponse
    {
        let endpoint = AppleCallMetrics.endpoint(of: request)
        let clock = ContinuousClock()
        let start = clock.now
        do throws(TransportFailure) {
            let response = try await base.execute(request, timeout: timeout)
            metrics.recordRequest(endpoint: endpoint, status: String(response.status), duration: clock.now - start)
            return response
        } catch {
            let status =
                switch error {
                case .timeout: "timeout"
                case .connection: "transport"
                }
            metrics.recordRequest(endpoint: endpoint, status: status, duration: clock.now - start)
            throw error
        }
    }
}

/// An ``AppleCallGate`` that counts the calls its base holds back.
public struct MeteredAppleCallGate: AppleCallGate {
    let base: any AppleCallGate
    let metrics: AppleCallMetrics

    public init(base: any AppleCallGate, metrics: AppleCallMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func acquire(_ call: AppleCall, holding booking: GateBooking?) async throws -> GateDecision {
        let decision = try await base.acquire(call, holding: booking)
        if case .wait = decision { metrics.countRateLimitWait(call.endpoint) }
        return decision
    }

    public func backOff(_ call: AppleCall, for delay: Duration) async throws -> GateSlot {
        try await base.backOff(call, for: delay)
    }
}
