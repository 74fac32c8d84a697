import AppStore
import AppStoreModels
import Contracts

extension TransactionVerifier {
    /// A StoreKit 2 signed transaction: verified locally with the verifier of the environment
    /// it claims (after the policy accepted that environment).
    func verifySignedTransaction(_ request: VerifyRequest) async throws -> VerifyOutcome {
        // Parsed once: the claimed environment picks the verifier, which then checks this parse.
        let parsed: ParsedJWS<JWSTransactionDecodedPayload>
        do throws(VerificationError) {
            parsed = try ParsedJWS(request.payload)
        } catch {
            return Self.outcome(for: error, field: "signedTransaction")
        }
        let claimed = parsed.claimedPayload
        let verifier: SignedDataVerifier
        switch self.verifier(for: claimed.environment) {
        case .success(let chosen): verifier = chosen
        case .failure(let refusal):
            return await self.forgeryOr(refusal, claimed: claimed.environment) { verifier in
                if case .invalid(let error) = await verifier.verifyAndDecodeTransaction(parsed) { return error }
                return nil
            }
        }
        switch await verifier.verifyAndDecodeTransaction(parsed) {
        case .valid(let payload):
            let transaction: TransactionDetails
            do throws(Rejection) {
                transaction = try TransactionDetails(verified: payload)
            } catch {
                return .reject(error)
            }
            var renewal: RenewalDetails?
            if let signedRenewalInfo = request.signedRenewalInfo {
                switch await Self.renewal(signedRenewalInfo, of: transaction, verifier: verifier) {
                case .verified(let verified): renewal = verified
                case .refused(let refusal): return refusal
                }
            }
            try await self.cache.put(transaction)
            return .verified([self.record(transaction, for: request, renewal: renewal)])
        case .invalid(let error), .retryable(let error):
            return Self.outcome(for: error, field: "signedTransaction")
        }
    }

    /// A signed AppTransaction (D58): verified locally like a signed transaction, with the
    /// verifier of the environment it claims (`receiptType`), and read as the app's own
    /// purchase (``TransactionDetails/init(appTransaction:)``).
    func verifyAppTransaction(_ request: VerifyRequest) async throws -> VerifyOutcome {
        // Parsed once: the claimed environment picks the verifier, which then checks this parse.
        let parsed: ParsedJWS<AppTransaction>
        do throws(VerificationError) {
            parsed = try ParsedJWS(request.payload)
        } catch {
            return Self.outcome(for: error, field: "appTransaction")
        }
        let claimed = parsed.claimedPayload.receiptType
        let verifier: SignedDataVerifier
        switch self.verifier(for: claimed) {
        case .success(let chosen): verifier = chosen
        case .failure(let refusal):
            return await self.forgeryOr(refusal, claimed: claimed) { verifier in
                if case .invalid(let error) = await verifier.verifyAndDecodeAppTransaction(parsed) { return error }
                return nil
            }
        }
        switch await verifier.verifyAndDecodeAppTransaction(parsed) {
        case .valid(let payload):
            do throws(Rejection) {
                return .verified([self.record(try TransactionDetails(appTransaction: payload), for: request)])
            } catch {
                return .reject(error)
            }
        case .invalid(let error), .retryable(let error):
            return Self.outcome(for: error, field: "appTransaction")
        }
    }

    /// The `signedRenewalInfo` a reconcile event carries next to the transaction (D32), verified
    /// by the transaction's verifier; renewal info of another subscription is refused.
    private static func renewal(
        _ signedRenewalInfo: String, of transaction: TransactionDetails, verifier: SignedDataVerifier
    ) async -> RenewalCheck {
        switch await verifier.verifyAndDecodeRenewalInfo(signedRenewalInfo) {
        case .valid(let payload):
            guard
                payload.originalTransactionId == nil
                    || payload.originalTransactionId == transaction.originalTransactionId
            else {
                return .refused(
                    .reject(
                        Rejection(
                            .malformedEvent,
                            "signedRenewalInfo is of \(payload.originalTransactionId ?? "-"), not \(transaction.originalTransactionId)"
                        )))
            }
            return .verified(RenewalDetails(verified: payload))
        case .invalid(let error), .retryable(let error):
            return .refused(Self.outcome(for: error, field: "signedRenewalInfo"))
        }
    }

    private enum RenewalCheck {
        case verified(RenewalDetails)
        case refused(VerifyOutcome)
    }

    /// A notification: its signature and the nested transaction and renewal info are verified
    /// together. Genuine notifications without a transaction are skipped.
    func verifyNotification(_ request: VerifyRequest) async throws -> VerifyOutcome {
        let claimed: ResponseBodyV2DecodedPayload
        do throws(VerificationError) {
            claimed = try UnverifiedJWS(request.payload).decodePayload(as: ResponseBodyV2DecodedPayload.self)
        } catch {
            return Self.outcome(for: error, field: "signedPayload")
        }
        let claimedEnvironment =
            claimed.data?.environment ?? claimed.summary?.environment ?? claimed.appData?.environment
            ?? claimed.externalPurchaseToken?.impliedEnvironment
        let verifier: SignedDataVerifier
        switch self.verifier(for: claimedEnvironment) {
        case .success(let chosen): verifier = chosen
        case .failure(let refusal):
            return await self.forgeryOr(refusal, claimed: claimedEnvironment) { verifier in
                if case .invalid(let error) = await verifier.verifyAndDecodeNotification(request.payload) {
                    return error
                }
                return nil
            }
        }

        let notification: VerifiedNotification
        switch await verifier.verifyAndDecodeNotification(request.payload) {
        case .valid(let verified): notification = verified
        case .invalid(let error), .retryable(let error): return Self.outcome(for: error, field: "signedPayload")
        }
        let type = notification.payload.notificationType
        guard let signedTransaction = notification.transaction else {
            return .skip(
                SkipReason(
                    .notificationWithoutTransaction,
                    "\(type?.rawValue ?? "untyped") notification carries no transaction"))
        }
        guard let type, let uuid = notification.payload.notificationUUID?.trimmedNonEmpty else {
            return .reject(Rejection(.malformedEvent, "notification has no notificationType or notificationUUID"))
        }
        let transaction: TransactionDetails
        do throws(Rejection) {
            transaction = try TransactionDetails(verified: signedTransaction)
        } catch {
            return .reject(error)
        }
        try await self.cache.put(transaction)
        let context = NotificationContext(
            notificationType: type,
            subtype: notification.payload.subtype,
            notificationUUID: uuid,
            signedDate: notification.payload.signedDate
        )
        return .verified([
            self.record(
                transaction,
                for: request,
                notification: context,
                renewal: notification.renewalInfo.map(RenewalDetails.init(verified:))
            )
        ])
    }
}

extension TransactionVerifier {
    /// The environment a payload claims is only a claim until its signature checks out: an
    /// altered payload must be `invalid_signature`, never a policy refusal of whatever
    /// environment the forger wrote. So before refusing, the signature is checked with any
    /// accepted environment's verifier; a signature or chain failure wins over the refusal.
    /// Xcode and LocalTesting data is never Apple-signed, so its refusal stands as it is.
    func forgeryOr(
        _ refusal: Rejection, claimed: AppStoreEnvironment?, check: (SignedDataVerifier) async -> VerificationError?
    ) async -> VerifyOutcome {
        guard claimed?.isUnsignedTestEnvironment != true, let verifier = self.anyVerifier,
            let error = await check(verifier)
        else { return .reject(refusal) }
        let outcome = Self.outcome(for: error, field: "signature")
        if case .reject(let rejection) = outcome, [.invalidSignature, .invalidCertificate].contains(rejection.reason) {
            return outcome
        }
        return .reject(refusal)
    }
}
