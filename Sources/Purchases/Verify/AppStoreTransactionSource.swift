public import AppStore
public import AppStoreModels

/// ``AppleTransactionSource`` over `AppStoreServerAPIClient` and `VerifyReceiptClient`.
///
/// Each client is built to make exactly one attempt in one environment (their own fallback
/// is off), so every request Apple sees passed the gate and the environment policy lives in
/// one place, the verifier. With the fallback off the clients report "not in production"
/// (4040010, 21007) as final; this adapter hands it back as `.switchEnvironment` so the
/// verifier can decide.
public struct AppStoreTransactionSource: AppleTransactionSource {
    private let production: AppStoreServerAPIClient
    private let sandbox: AppStoreServerAPIClient
    private let legacyProduction: VerifyReceiptClient?
    private let legacySandbox: VerifyReceiptClient?

    /// - Parameters:
    ///   - api: credentials and endpoints; its `environment` and `sandboxFallback` are ignored.
    ///   - verifyReceipt: set to enable the legacy endpoint; its `sandboxAllowed` is ignored.
    public init(
        api: AppStoreServerAPIConfiguration,
        verifyReceipt: VerifyReceiptClient.Configuration? = nil,
        executor: any AppleHTTPExecutor = AsyncHTTPClientExecutor()
    ) throws(ConfigurationError) {
        self.production = try AppStoreServerAPIClient(configuration: api.pinned(to: .production), executor: executor)
        self.sandbox = try AppStoreServerAPIClient(configuration: api.pinned(to: .sandbox), executor: executor)

        if var legacy = verifyReceipt {
            legacy.sandboxAllowed = false
            self.legacyProduction = VerifyReceiptClient(configuration: legacy, executor: executor)
            // The client always starts at its "production" URL; pointing that URL at sandbox
            // gives a client that asks sandbox once (a 21008 there is then final, as it should
            // be after production already answered 21007).
            legacy.productionURL = legacy.sandboxURL
            self.legacySandbox = VerifyReceiptClient(configuration: legacy, executor: executor)
        } else {
            self.legacyProduction = nil
            self.legacySandbox = nil
        }
    }

    public func transactionInfo(id: String, environment: AppStoreEnvironment) async throws(AppleCallFailure) -> String {
        let client = environment == .sandbox ? self.sandbox : self.production
        let response: AppStoreAPIResponse<TransactionInfoResponse>
        do throws(AppStoreAPIError) {
            response = try await client.getTransactionInfo(transactionId: id)
        } catch {
            if error.apiErrorCode == 4_040_010, environment == .production {
                throw AppleCallFailure(.switchEnvironment(to: .sandbox))
            }
            throw AppleCallFailure(error.outcome)
        }
        guard let signed = response.value.signedTransactionInfo else {
            throw AppleCallFailure(
                .retry(
                    after: AppleOutcomeClassifier.Delay.invalidBody,
                    reason: RetryReason(
                        .invalidResponseBody, "Get Transaction Info answered without signedTransactionInfo")
                ))
        }
        return signed
    }

    public func verifyReceipt(_ receiptData: String, environment: AppStoreEnvironment) async throws(AppleCallFailure)
        -> VerifyReceiptResponse
    {
        guard let client = environment == .sandbox ? self.legacySandbox : self.legacyProduction else {
            throw AppleCallFailure(
                .retry(
                    after: AppleOutcomeClassifier.Delay.configuration,
                    reason: RetryReason(.requestRejected, "verifyReceipt is not configured")
                ))
        }
        do throws(VerifyReceiptClient.Failure) {
            return try await client.verify(receiptData: receiptData).value
        } catch {
            if error.status == 21_007, environment == .production {
                throw AppleCallFailure(.switchEnvironment(to: .sandbox))
            }
            throw AppleCallFailure(error.outcome)
        }
    }
}
