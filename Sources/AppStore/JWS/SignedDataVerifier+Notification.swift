public import AppStoreModels

/// A notification whose signature, identity and nested signed data all verified.
public struct VerifiedNotification: Codable, Sendable, Hashable {
    public var payload: ResponseBodyV2DecodedPayload
    /// `data.signedTransactionInfo`, verified with the same verifier.
    public var transaction: JWSTransactionDecodedPayload?
    /// `data.signedRenewalInfo`, verified with the same verifier.
    public var renewalInfo: JWSRenewalInfoDecodedPayload?
    /// `appData.signedAppTransactionInfo` (RESCIND_CONSENT), verified with the same verifier.
    public var appTransaction: AppTransaction?

    public init(
        payload: ResponseBodyV2DecodedPayload,
        transaction: JWSTransactionDecodedPayload? = nil,
        renewalInfo: JWSRenewalInfoDecodedPayload? = nil,
        appTransaction: AppTransaction? = nil
    ) {
        self.payload = payload
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.appTransaction = appTransaction
    }
}

extension SignedDataVerifier {
    /// Verifies a notification's `signedPayload`, then the transaction and renewal info nested
    /// in `data` and the app transaction in `appData`: a notification is only as trustworthy as
    /// everything it carries.
    public func verifyAndDecodeNotification(_ signedPayload: String) async -> VerificationResult<VerifiedNotification> {
        let outer = await self.verifySignature(signedPayload, as: ResponseBodyV2DecodedPayload.self)
        guard case .valid(let notification) = outer else { return outer.map { VerifiedNotification(payload: $0) } }

        if let refusal = self.checkNotificationIdentity(notification) {
            return .invalid(refusal)
        }

        var verified = VerifiedNotification(payload: notification)
        if let signedTransaction = notification.data?.signedTransactionInfo {
            switch await self.verifyAndDecodeTransaction(signedTransaction) {
            case .valid(let transaction): verified.transaction = transaction
            case .invalid(let error): return .invalid(Self.nested(error, "signedTransactionInfo"))
            case .retryable(let error): return .retryable(Self.nested(error, "signedTransactionInfo"))
            }
        }
        if let signedRenewal = notification.data?.signedRenewalInfo {
            switch await self.verifyAndDecodeRenewalInfo(signedRenewal) {
            case .valid(let renewal): verified.renewalInfo = renewal
            case .invalid(let error): return .invalid(Self.nested(error, "signedRenewalInfo"))
            case .retryable(let error): return .retryable(Self.nested(error, "signedRenewalInfo"))
            }
        }
        if let signedApp = notification.appData?.signedAppTransactionInfo {
            switch await self.verifyAndDecodeAppTransaction(signedApp) {
            case .valid(let app): verified.appTransaction = app
            case .invalid(let error): return .invalid(Self.nested(error, "signedAppTransactionInfo"))
            case .retryable(let error): return .retryable(Self.nested(error, "signedAppTransactionInfo"))
            }
        }
        return .valid(verified)
    }

    /// Identity comes from `data`, else `summary`, else `externalPurchaseToken` (environment
    /// implied by its id prefix), else `appData`; a notification with none of them is refused.
    private func checkNotificationIdentity(_ notification: ResponseBodyV2DecodedPayload) -> VerificationError? {
        let identity: (bundleId: String?, appAppleId: Int64?, environment: AppStoreEnvironment?)
        if let data = notification.data {
            identity = (data.bundleId, data.appAppleId, data.environment)
        } else if let summary = notification.summary {
            identity = (summary.bundleId, summary.appAppleId, summary.environment)
        } else if let token = notification.externalPurchaseToken {
            identity = (token.bundleId, token.appAppleId, token.impliedEnvironment)
        } else if let appData = notification.appData {
            identity = (appData.bundleId, appData.appAppleId, appData.environment)
        } else {
            return VerificationError(
                .invalidAppIdentifier, "notification has no data, summary, externalPurchaseToken or appData")
        }
        return self.checkIdentity(
            bundleId: identity.bundleId,
            environment: identity.environment,
            appAppleId: identity.appAppleId,
            checkAppAppleId: true
        )
    }

    private static func nested(_ error: VerificationError, _ field: String) -> VerificationError {
        VerificationError(error.code, "\(field): \(error.reason)")
    }
}
