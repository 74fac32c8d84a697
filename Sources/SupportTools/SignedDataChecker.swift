public import AppStore
import AppStoreModels
import Contracts
public import Logging
public import Purchases

/// Checks what Apple's support endpoints return with verify's own trust: the same roots, bundle,
/// app id, environment policy and online checks (``VerifyConfiguration``), so a transaction the
/// support tools call verified is one the pipeline would accept.
public struct SignedDataChecker: Sendable {
    private let policy: EnvironmentPolicy
    private let verifiers: [AppStoreEnvironment: SignedDataVerifier]

    public init(configuration: VerifyConfiguration, logger: Logger) throws(ConfigurationError) {
        self.policy = configuration.environmentPolicy
        self.verifiers = try configuration.signedDataVerifiers(logger: logger)
    }

    /// A signed transaction, checked by the verifier of the environment it claims.
    public func transaction(_ jws: String) async -> CheckedTransaction {
        let parsed: ParsedJWS<JWSTransactionDecodedPayload>
        do throws(VerificationError) {
            parsed = try ParsedJWS(jws)
        } catch {
            return CheckedTransaction(verification: .refused(error.description), transaction: nil)
        }
        switch verifier(for: parsed.claimedPayload.environment) {
        case .failure(let refusal):
            return CheckedTransaction(verification: .refused(refusal.description), transaction: parsed.claimedPayload)
        case .success(let verifier):
            switch await verifier.verifyAndDecodeTransaction(parsed) {
            case .valid(let payload): return CheckedTransaction(verification: .verified, transaction: payload)
            case .invalid(let error):
                return CheckedTransaction(verification: .refused(error.description), transaction: parsed.claimedPayload)
            case .retryable(let error):
                return CheckedTransaction(
                    verification: .undecided(error.description), transaction: parsed.claimedPayload)
            }
        }
    }

    /// Signed renewal info, checked like a transaction (it names no bundle id).
    public func renewalInfo(_ jws: String) async -> CheckedRenewalInfo {
        let parsed: ParsedJWS<JWSRenewalInfoDecodedPayload>
        do throws(VerificationError) {
            parsed = try ParsedJWS(jws)
        } catch {
            return CheckedRenewalInfo(verification: .refused(error.description), renewalInfo: nil)
        }
        switch verifier(for: parsed.claimedPayload.environment) {
        case .failure(let refusal):
            return CheckedRenewalInfo(verification: .refused(refusal.description), renewalInfo: parsed.claimedPayload)
        case .success(let verifier):
            switch await verifier.verifyAndDecodeRenewalInfo(jws) {
            case .valid(let payload): return CheckedRenewalInfo(verification: .verified, renewalInfo: payload)
            case .invalid(let error):
                return CheckedRenewalInfo(verification: .refused(error.description), renewalInfo: parsed.claimedPayload)
            case .retryable(let error):
                return CheckedRenewalInfo(
                    verification: .undecided(error.description), renewalInfo: parsed.claimedPayload)
            }
        }
    }

    /// A notification's `signedPayload`, checked by the verifier of the environment it claims.
    public func notification(_ jws: String) async -> CheckedNotification {
        let claimed: ResponseBodyV2DecodedPayload
        do throws(VerificationError) {
            claimed = try UnverifiedJWS(jws).decodePayload(as: ResponseBodyV2DecodedPayload.self)
        } catch {
            return CheckedNotification(verification: .refused(error.description), notification: nil)
        }
        let environment = claimed.data?.environment ?? claimed.summary?.environment ?? claimed.appData?.environment
        switch verifier(for: environment) {
        case .failure(let refusal):
            return CheckedNotification(verification: .refused(refusal.description), notification: claimed)
        case .success(let verifier):
            switch await verifier.verifyAndDecodeNotification(jws) {
            case .valid(let verified):
                return CheckedNotification(verification: .verified, notification: verified.payload)
            case .invalid(let error):
                return CheckedNotification(verification: .refused(error.description), notification: claimed)
            case .retryable(let error):
                return CheckedNotification(verification: .undecided(error.description), notification: claimed)
            }
        }
    }

    /// A signed AppTransaction (the app's own purchase), checked by the verifier of its
    /// `receiptType`.
    public func appTransaction(_ jws: String) async -> CheckedAppTransaction {
        let claimed: AppTransaction
        do throws(VerificationError) {
            claimed = try UnverifiedJWS(jws).decodePayload(as: AppTransaction.self)
        } catch {
            return CheckedAppTransaction(verification: .refused(error.description), appTransaction: nil)
        }
        switch verifier(for: claimed.receiptType) {
        case .failure(let refusal):
            return CheckedAppTransaction(verification: .refused(refusal.description), appTransaction: claimed)
        case .success(let verifier):
            switch await verifier.verifyAndDecodeAppTransaction(jws) {
            case .valid(let payload): return CheckedAppTransaction(verification: .verified, appTransaction: payload)
            case .invalid(let error):
                return CheckedAppTransaction(verification: .refused(error.description), appTransaction: claimed)
            case .retryable(let error):
                return CheckedAppTransaction(verification: .undecided(error.description), appTransaction: claimed)
            }
        }
    }

    private func verifier(for environment: AppStoreEnvironment?) -> Result<SignedDataVerifier, Rejection> {
        guard let environment else { return .failure(Rejection(.wrongEnvironment, "payload names no environment")) }
        if let refusal = policy.refusal(for: environment) { return .failure(refusal) }
        guard let verifier = verifiers[environment] else {
            return .failure(Rejection(.wrongEnvironment, "no verifier for \(environment)"))
        }
        return .success(verifier)
    }
}
