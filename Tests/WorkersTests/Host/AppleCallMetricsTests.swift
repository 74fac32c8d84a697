import AppStore
import AppStoreModels
import Crypto
import Foundation
import Hosting
import Prometheus
import Purchases
import Synchronization
import Testing

@testable import WorkerCommon

@Suite struct AppleCallMetricsTests {
    /// Answers each request with the next of `answers` (a status, or a transport failure).
    final class ScriptedApple: AppleHTTPExecutor {
        let answers: Mutex<[Result<Int, TransportFailure>]>

        init(_ answers: [Result<Int, TransportFailure>]) { self.answers = Mutex(answers) }

        func execute(_ request: AppleHTTPRequest, timeout: Duration) async throws(TransportFailure)
            -> AppleHTTPResponse
        {
            let answer = answers.withLock { $0.removeFirst() }
            switch answer {
            case .success(let status): return AppleHTTPResponse(status: status, body: Array("{}".utf8))
            case .failure(let failure): throw failure
            }
        }
    }

    @Test func everyExchangeIsTimedByEndpointAndStatus() async throws {
        let registry = PrometheusCollectorRegistry()
        let metrics = AppleCallMetrics(factory: PrometheusMetricsFactory(registry: registry))
        let executor = MeteredAppleHTTPExecutor(
            ScriptedApple([.success(200), .success(200), .success(429), .failure(.timeout), .success(200)]),
            metrics: metrics)
        let api = "https://api.storekit.itunes.apple.com"
        for path in [
            "/inApps/v1/transactions/2000000000000001", "/inApps/v1/transactions/2000000000000002",
            "/inApps/v2/history/2000000000000001?sort=ASCENDING", "/inApps/v1/lookup/MK5TTTVWJH",
        ] {
            _ = try? await executor.execute(AppleHTTPRequest(method: "GET", url: api + path), timeout: .seconds(1))
        }
        _ = try await executor.execute(
            AppleHTTPRequest(method: "POST", url: "https://buy.itunes.apple.com/verifyReceipt"), timeout: .seconds(1))

        let text = String(decoding: OpsServer.exposition(registry), as: UTF8.self)
        let name = "iap_apple_request_duration_seconds"
        #expect(text.contains(#"\#(name)_count{endpoint="get_transaction_info",status="200"} 2"#))
        #expect(text.contains(#"\#(name)_count{endpoint="get_transaction_history",status="429"} 1"#))
        #expect(text.contains(#"\#(name)_count{endpoint="lookup_order",status="timeout"} 1"#))
        #expect(text.contains(#"\#(name)_count{endpoint="verify_receipt",status="200"} 1"#))
        // Apple's buckets, not the factory's defaults.
        #expect(text.contains(#"\#(name)_bucket{endpoint="verify_receipt",status="200",le="0.3"} 1"#))
        #expect(MetricHelp.familiesWithoutHelp(text) == [])
    }

    /// Every call the App Store clients make gets its own endpoint label: none is `other`.
    @Test func theClientsRequestsAreNamedAfterApplesEndpoints() async throws {
        struct Refusing: AppleHTTPExecutor {
            func execute(_ request: AppleHTTPRequest, timeout: Duration) async throws(TransportFailure)
                -> AppleHTTPResponse
            { AppleHTTPResponse(status: 401) }
        }
        let registry = PrometheusCollectorRegistry()
        let executor = MeteredAppleHTTPExecutor(
            Refusing(), metrics: AppleCallMetrics(factory: PrometheusMetricsFactory(registry: registry)))
        let api = try AppStoreServerAPIClient(
            configuration: AppStoreServerAPIConfiguration(
                privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, keyId: "KEY", issuerId: "ISSUER",
                bundleId: "com.example.app"),
            executor: executor)
        _ = try? await api.getTransactionInfo(transactionId: "1")
        _ = try? await api.getTransactionHistory(transactionId: "1")
        _ = try? await api.getAllSubscriptionStatuses(transactionId: "1")
        _ = try? await api.lookUpOrderId("MK5TTTVWJH")
        _ = try? await api.getRefundHistory(transactionId: "1")
        _ = try? await api.requestTestNotification()
        _ = try? await api.getTestNotificationStatus(token: "token")
        _ = try? await api.finishTransaction(transactionId: "1")
        _ = try? await api.setAppAccountToken(originalTransactionId: "1", token: UUID())
        _ = try? await api.getAppTransactionInfo(anyTransactionId: "1")
        _ = try? await api.getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: "r", productId: "p")
        _ = try? await VerifyReceiptClient(executor: executor).verify(receiptData: "MIIT")

        let text = String(decoding: OpsServer.exposition(registry), as: UTF8.self)
        for endpoint in [
            "get_transaction_info", "get_transaction_history", "get_all_subscription_statuses", "lookup_order",
            "get_refund_history", "request_test_notification", "get_test_notification_status", "verify_receipt",
            "finish_transaction", "set_app_account_token", "get_app_transaction_info",
            "get_status_of_subscription_renewal_date_extensions",
        ] {
            #expect(
                text.contains(#"iap_apple_request_duration_seconds_count{endpoint="\#(endpoint)",status="401"} 1"#),
                "\(endpoint)")
        }
        #expect(!text.contains(#"endpoint="other""#))
    }

    @Test func waitsAndConfigurationErrorsAreCountedFromZero() async throws {
        let registry = PrometheusCollectorRegistry()
        let metrics = AppleCallMetrics(factory: PrometheusMetricsFactory(registry: registry))
        var text = String(decoding: OpsServer.exposition(registry), as: UTF8.self)
        #expect(text.contains(#"iap_apple_configuration_errors_total{reason="authentication"} 0"#))
        #expect(text.contains(#"iap_apple_rate_limit_waits_total{endpoint="get_transaction_info"} 0"#))
        #expect(text.contains("iap_apple_ocsp_offline_accepts_total 0"))

        struct BookedGate: AppleCallGate {
            static let slot = GateSlot(
                delay: .milliseconds(20),
                booking: GateBooking(AppleCall(.transactionInfo, environment: .production), at: 1),
                cause: .budget)
            func acquire(_ call: AppleCall, holding booking: GateBooking?) async throws -> GateDecision {
                .wait(Self.slot)
            }
            func backOff(_ call: AppleCall, for delay: Duration) async throws -> GateSlot { Self.slot }
        }
        let gate = MeteredAppleCallGate(base: BookedGate(), metrics: metrics)
        #expect(
            try await gate.acquire(AppleCall(.transactionInfo, environment: .production), holding: nil)
                == .wait(BookedGate.slot))
        metrics.countIfConfigurationError(RetryReason(.authentication, "HTTP 401"))
        metrics.countOCSPOfflineAccept()
        metrics.countIfConfigurationError(RetryReason(.requestRejected))
        metrics.countIfConfigurationError(RetryReason(.serverError, "HTTP 503"))

        text = String(decoding: OpsServer.exposition(registry), as: UTF8.self)
        #expect(text.contains(#"iap_apple_rate_limit_waits_total{endpoint="get_transaction_info"} 1"#))
        #expect(text.contains("iap_apple_ocsp_offline_accepts_total 1"))
        #expect(text.contains(#"iap_apple_configuration_errors_total{reason="authentication"} 1"#))
        #expect(text.contains(#"iap_apple_configuration_errors_total{reason="request_rejected"} 1"#))
        #expect(!text.contains("server_error"))
        #expect(MetricHelp.familiesWithoutHelp(text) == [])
    }
}
