import AppStore
import AppStoreModels
import Contracts
import Logging

extension TransactionVerifier {
    /// What one Apple call (after the environment walk) came to.
    enum AppleAnswer<Value: Sendable>: Sendable {
        case value(Value, environment: AppStoreEnvironment)
        case failed(VerifyOutcome)
    }

    /// Looks up `ids` (cache first) and verifies Apple's signed answers. A retry of any id
    /// retries the whole request (ids already verified are cached by then, so they cost no
    /// second call); ids Apple refuses are dropped when others succeed, and reject the
    /// request when none does.
    func lookUp(_ ids: [String], for request: VerifyRequest) async throws -> VerifyOutcome {
        var records: [VerifiedTransaction] = []
        var refusals: [Rejection] = []
        for id in ids {
            switch try await self.transaction(id: id) {
            case .value(let transaction, _):
                records.append(self.record(transaction, for: request))
            case .failed(.reject(let refusal)):
                refusals.append(refusal)
            case .failed(let outcome):
                return outcome
            }
        }
        guard !records.isEmpty else {
            return .reject(refusals.first ?? Rejection(.transactionNotFound, "no transaction id to look up"))
        }
        if let first = refusals.first {
            self.logger.warning(
                "some transactions of the request were refused",
                metadata: ["verified": "\(records.count)", "refused": "\(refusals.count)", "first": "\(first)"]
            )
        }
        return .verified(records)
    }

    /// One transaction: from the cache, else Get Transaction Info plus local verification of
    /// Apple's signed answer.
    func transaction(id: String) async throws -> AppleAnswer<TransactionDetails> {
        if let cached = try await self.cache.get(transactionId: id) {
            if let refusal = self.configuration.environmentPolicy.refusal(for: cached.environment) {
                return .failed(.reject(refusal))
            }
            return .value(cached, environment: cached.environment)
        }
        let answer = try await self.askApple(.transactionInfo, about: "transaction \(id)") {
            environment throws(AppleCallFailure) in
            try await self.source.transactionInfo(id: id, environment: environment)
        }
        let signed: String
        let environment: AppStoreEnvironment
        switch answer {
        case .value(let value, let answeredIn):
            signed = value
            environment = answeredIn
        case .failed(let outcome):
            return .failed(outcome)
        }
        let verifier: SignedDataVerifier
        switch self.verifier(for: environment) {
        case .success(let chosen): verifier = chosen
        case .failure(let refusal): return .failed(.reject(refusal))
        }
        switch await verifier.verifyAndDecodeTransaction(signed) {
        case .valid(let payload):
            let transaction: TransactionDetails
            do throws(Rejection) {
                transaction = try TransactionDetails(verified: payload)
            } catch {
                return .failed(.reject(error))
            }
            try await self.cache.put(transaction)
            return .value(transaction, environment: environment)
        case .invalid(let error), .retryable(let error):
            return .failed(Self.outcome(for: error, field: "transaction \(id) from Apple"))
        }
    }

    /// Calls Apple through the gate, first in the deployment's lookup environment and, when
    /// Apple says the data lives in the other one and the policy accepts it, once there.
    ///
    /// Waiting is not failing: a slot of the budget, or Apple's 429, is waited for in place when
    /// it is near (at most ``inPlaceRounds`` times) and otherwise handed back as `.wait`, never as
    /// a retry charged to the record's attempts.
    func askApple<Value: Sendable>(
        _ endpoint: AppleCall.Endpoint,
        about subject: String,
        _ call: (AppStoreEnvironment) async throws(AppleCallFailure) -> Value
    ) async throws -> AppleAnswer<Value> {
        let policy = self.configuration.environmentPolicy
        let hold = self.configuration.appleWaitInPlace
        var environment = policy.firstLookupEnvironment
        var switched = false
        var admitted = false
        var inPlace = 0
        while true {
            let gated = AppleCall(endpoint, environment: environment)
            if !admitted, case .later(let slot) = try await self.gate.admit(gated, holding: nil, sleepingUpTo: hold) {
                return .failed(.wait(slot))
            }
            admitted = false
            let outcome: AppleOutcome
            do throws(AppleCallFailure) {
                return .value(try await call(environment), environment: environment)
            } catch {
                outcome = error.outcome
            }
            switch outcome {
            case .switchEnvironment(let next) where !switched && policy.refusal(for: next) == nil:
                environment = next
                switched = true
            case .switchEnvironment(let next):
                let refusal = Self.refusedSwitch(
                    endpoint, subject: subject, from: environment, to: next, policy: policy, switched: switched)
                return .failed(.reject(refusal))
            case .retry(let after, let reason):
                guard let slot = try await self.gate.heed(after, reason, for: gated) else {
                    return .failed(.retry(after: after, reason: reason))
                }
                // Apple's 429: everyone holds back, and this call takes its slot after the pause.
                inPlace += 1
                guard slot.delay <= hold, inPlace <= Self.inPlaceRounds else { return .failed(.wait(slot)) }
                try await Task.sleep(for: slot.delay)
                admitted = true
            case .terminal(let reason):
                return .failed(.reject(Rejection(ReasonCode(reason.code), "\(subject): \(reason)")))
            case .ok:
                return .failed(
                    .retry(
                        after: AppleOutcomeClassifier.Delay.invalidBody,
                        reason: RetryReason(.invalidResponseBody, "\(subject): Apple answered without data")
                    ))
            }
        }
    }

    /// How many 429s one request waits out in place before it parks: an Apple that keeps
    /// answering 429 with a short `Retry-After` must not keep a record spinning in a worker.
    static let inPlaceRounds = 3

    /// Apple says "the other environment" and we may not (or already did) go there. The codes
    /// follow `AppleOutcomeClassifier`: an id missing from production is `transaction_not_found`
    /// (it may exist nowhere), a receipt Apple calls sandbox is the policy's refusal.
    private static func refusedSwitch(
        _ endpoint: AppleCall.Endpoint,
        subject: String,
        from environment: AppStoreEnvironment,
        to next: AppStoreEnvironment,
        policy: EnvironmentPolicy,
        switched: Bool
    ) -> Rejection {
        let why = switched ? "\(next) was asked already" : "\(next) is not accepted"
        switch endpoint {
        case .transactionInfo, .consumption, .notificationHistory, .subscriptionStatuses, .finishTransaction,
            .setAppAccountToken, .appTransactionInfo, .extendRenewalDate, .massExtension:
            return Rejection(.transactionNotFound, "\(subject): not found in \(environment); \(why)")
        case .verifyReceipt:
            if !switched, let refusal = policy.refusal(for: next) {
                return Rejection(
                    refusal.reason, "\(subject): \(environment) says it belongs to \(next); \(refusal.detail)")
            }
            return Rejection(.wrongEnvironment, "\(subject): \(environment) says it belongs to \(next); \(why)")
        }
    }
}
