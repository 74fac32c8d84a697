public import AppStore
public import AppStoreModels

/// The Apple calls verify makes, one attempt in one environment each.
///
/// Verify walks the environments itself (production first, the other one when Apple says so
/// and the policy allows), consults the ``AppleCallGate`` before every attempt, and decides
/// retry versus reject from ``AppleCallFailure/outcome``. ``AppStoreTransactionSource`` is the
/// implementation over the `AppStore` clients; tests use fakes.
public protocol AppleTransactionSource: Sendable {
    /// Get Transaction Info in `environment`: Apple's signed transaction (JWS), not yet verified.
    func transactionInfo(id: String, environment: AppStoreEnvironment) async throws(AppleCallFailure) -> String

    /// verifyReceipt in `environment`: Apple's answer with status 0 (or 21006).
    func verifyReceipt(_ receiptData: String, environment: AppStoreEnvironment) async throws(AppleCallFailure)
        -> VerifyReceiptResponse
}

/// An Apple call that produced no data, classified by `AppleOutcomeClassifier`.
///
/// `outcome` is `.switchEnvironment` when Apple says the data lives in the other environment
/// (4040010 from production, verifyReceipt 21007/21008), whatever the deployment's policy:
/// applying the policy is verify's job.
public struct AppleCallFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public var outcome: AppleOutcome

    public init(_ outcome: AppleOutcome) {
        self.outcome = outcome
    }

    public var description: String { "\(self.outcome)" }
}
