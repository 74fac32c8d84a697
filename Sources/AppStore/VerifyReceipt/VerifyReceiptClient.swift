public import AppStoreModels
import Foundation

/// Client of the deprecated `verifyReceipt` endpoint, for deployments that still use it.
///
/// Production first; status 21007 resends to sandbox (when allowed) and 21008 to production,
/// once. A 200 whose body is not JSON (HTML during Apple's 2020 outage) is transient.
public struct VerifyReceiptClient: Sendable {
    public struct Configuration: Sendable {
        public static let defaultProductionURL = AppleEndpoints.verifyReceiptProduction
        public static let defaultSandboxURL = AppleEndpoints.verifyReceiptSandbox

        /// The app's shared secret (`password`), required for auto-renewable subscriptions.
        public var sharedSecret: String?
        /// Only the latest renewal of each subscription in `latest_receipt_info`.
        public var excludeOldTransactions: Bool
        public var sandboxAllowed: Bool
        public var productionURL: String
        public var sandboxURL: String
        public var timeout: Duration

        public init(
            sharedSecret: String? = nil,
            excludeOldTransactions: Bool = false,
            sandboxAllowed: Bool = true,
            productionURL: String = Self.defaultProductionURL,
            sandboxURL: String = Self.defaultSandboxURL,
            timeout: Duration = .seconds(30)
        ) {
            self.sharedSecret = sharedSecret
            self.excludeOldTransactions = excludeOldTransactions
            self.sandboxAllowed = sandboxAllowed
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.timeout = timeout
        }
    }

    /// A verifyReceipt call that did not produce a usable receipt; ``outcome`` is never `.ok`.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var outcome: AppleOutcome
        public var environment: AppStoreEnvironment
        public var status: Int64?

        public var description: String {
            "verifyReceipt (\(self.environment)) status \(self.status.map(String.init) ?? "-"): \(self.outcome)"
        }
    }

    public let configuration: Configuration
    private let executor: any AppleHTTPExecutor

    public init(configuration: Configuration = .init(), executor: any AppleHTTPExecutor = AsyncHTTPClientExecutor()) {
        self.configuration = configuration
        self.executor = executor
    }

    /// - Parameter receiptData: the base64 app receipt (`receipt-data`).
    public func verify(receiptData: String) async throws(Failure) -> AppStoreAPIResponse<VerifyReceiptResponse> {
        var requestBody: [String: Any] = ["receipt-data": receiptData]
        if let sharedSecret = self.configuration.sharedSecret { requestBody["password"] = sharedSecret }
        if self.configuration.excludeOldTransactions { requestBody["exclude-old-transactions"] = true }
        let body: [UInt8]
        do {
            body = Array(try JSONSerialization.data(withJSONObject: requestBody))
        } catch {
            throw Failure(
                outcome: .terminal(TerminalReason(.receiptInvalid, "request does not encode")), environment: .production
            )
        }

        var environment = AppStoreEnvironment.production
        var switched = false
        while true {
            let context = ClassificationContext(
                environment: environment,
                sandboxAllowed: self.configuration.sandboxAllowed,
                switchedEnvironment: switched
            )
            let url = environment == .sandbox ? self.configuration.sandboxURL : self.configuration.productionURL
            let request = AppleHTTPRequest(
                method: "POST", url: url,
                headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
                body: body
            )
            let outcome: AppleOutcome
            var response: AppleHTTPResponse?
            do throws(TransportFailure) {
                let answer = try await self.executor.execute(request, timeout: self.configuration.timeout)
                response = answer
                outcome = AppleOutcomeClassifier.classify(
                    .verifyReceipt(status: answer.status, body: answer.body), context: context)
            } catch {
                outcome = AppleOutcomeClassifier.classify(.transportFailure(error), context: context)
            }
            let status = response.flatMap { JSONBody.object($0.body) }.flatMap { JSONBody.integer($0["status"]) }

            if case .ok = outcome, let response {
                do {
                    let decoded = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(response.body))
                    return AppStoreAPIResponse(value: decoded, environment: environment)
                } catch {
                    throw Failure(
                        outcome: .retry(
                            after: AppleOutcomeClassifier.Delay.invalidBody,
                            reason: RetryReason(
                                .invalidResponseBody,
                                "status \(status.map(String.init) ?? "-") body does not decode: \(error)")
                        ),
                        environment: environment,
                        status: status
                    )
                }
            }
            if case .switchEnvironment(let next) = outcome, !switched {
                environment = next
                switched = true
                continue
            }
            throw Failure(outcome: outcome, environment: environment, status: status)
        }
    }
}
