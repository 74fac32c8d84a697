import AppStore
import AppStoreModels
import Contracts

extension TransactionVerifier {
    /// A StoreKit 1 `transactionReceipt`: decoded locally (no trust) for its transaction id,
    /// which is then looked up with Apple.
    func verifyTransactionReceipt(_ request: VerifyRequest) async throws -> VerifyOutcome {
        let receipt: TransactionReceipt
        do throws(ReceiptError) {
            receipt = try TransactionReceiptDecoder.decode(base64: request.payload)
        } catch {
            return .reject(Rejection(.receiptInvalid, "transactionReceipt: \(error)"))
        }
        if let bundleId = receipt.bundleId, bundleId != self.configuration.bundleId {
            return .reject(
                Rejection(.wrongBundle, "transactionReceipt bid '\(bundleId)' is not \(self.configuration.bundleId)"))
        }
        guard let id = receipt.transactionId?.trimmedNonEmpty, id != "0" else {
            return .reject(Rejection(.receiptInvalid, "transactionReceipt has no usable transaction-id"))
        }
        return try await self.lookUp([id], for: request)
    }

    /// An app receipt, Server API style: decoded locally to transaction ids, one lookup per
    /// purchase (the latest record of each originalTransactionId: older renewals add nothing
    /// grant would act on, and a long-lived subscriber's receipt holds hundreds of them).
    func verifyAppReceiptWithServerAPI(_ request: VerifyRequest) async throws -> VerifyOutcome {
        let receipt: AppReceipt
        do throws(ReceiptError) {
            receipt = try AppReceiptDecoder.decode(base64: request.payload)
        } catch {
            return .reject(Rejection(.receiptInvalid, "appReceipt: \(error)"))
        }
        if let refusal = self.refusal(forLocal: receipt) { return .reject(refusal) }
        let ids = Self.lookupIds(receipt)
        guard !ids.isEmpty else {
            return .skip(SkipReason(.receiptWithoutPurchases, "appReceipt holds no in-app purchase records"))
        }
        return try await self.lookUp(ids, for: request)
    }

    /// An app receipt sent to the legacy verifyReceipt endpoint. Local decoding is optional
    /// here (Apple decides), but when it works it refuses Xcode and foreign receipts without a
    /// call and spares the call entirely when every purchase is cached already.
    func verifyAppReceiptWithVerifyReceipt(_ request: VerifyRequest) async throws -> VerifyOutcome {
        if let receipt = try? AppReceiptDecoder.decode(base64: request.payload) {
            if let refusal = self.refusal(forLocal: receipt) { return .reject(refusal) }
            if let cached = try await self.cachedTransactions(Self.lookupIds(receipt)) {
                return .verified(cached.map { self.record($0, for: request) })
            }
        }
        let answer = try await self.askApple(.verifyReceipt, about: "appReceipt") {
            environment throws(AppleCallFailure) in
            try await self.source.verifyReceipt(request.payload, environment: environment)
        }
        let transactions: [TransactionDetails]
        switch answer {
        case .failed(let outcome):
            return outcome
        case .value(let response, let environment):
            do throws(Rejection) {
                transactions = try LegacyReceiptTransactions.transactions(
                    in: response, environment: environment, bundleId: self.configuration.bundleId
                )
            } catch {
                return .reject(error)
            }
        }
        guard !transactions.isEmpty else {
            return .skip(SkipReason(.receiptWithoutPurchases, "verifyReceipt found no in-app purchase records"))
        }
        for transaction in transactions {
            try await self.cache.put(transaction)
        }
        return .verified(transactions.map { self.record($0, for: request) })
    }

    /// Refusals visible without Apple: an Xcode receipt (signed by a local StoreKit key; Apple
    /// knows none of its ids) or another app's receipt.
    private func refusal(forLocal receipt: AppReceipt) -> Rejection? {
        if receipt.environment == AppStoreEnvironment.xcode.rawValue {
            return self.configuration.environmentPolicy.refusal(for: .xcode)
                ?? Rejection(
                    .receiptInvalid, "Xcode receipts are signed locally; Apple cannot look up their transactions")
        }
        if let bundleId = receipt.bundleId, bundleId != self.configuration.bundleId {
            return Rejection(.wrongBundle, "appReceipt bundleId '\(bundleId)' is not \(self.configuration.bundleId)")
        }
        return nil
    }

    /// Every id from the cache and accepted by the policy, else nil (Apple must be asked).
    private func cachedTransactions(_ ids: [String]) async throws -> [TransactionDetails]? {
        guard !ids.isEmpty else { return nil }
        var transactions: [TransactionDetails] = []
        for id in ids {
            guard let cached = try await self.cache.get(transactionId: id),
                self.configuration.environmentPolicy.refusal(for: cached.environment) == nil
            else { return nil }
            transactions.append(cached)
        }
        return transactions
    }

    private static func lookupIds(_ receipt: AppReceipt) -> [String] {
        let records = receipt.inApp.filter { record in
            guard let id = record.transactionId?.trimmedNonEmpty else { return false }
            return id != "0"
        }
        return LatestPerPurchase.select(
            records,
            purchase: { $0.originalTransactionId?.trimmedNonEmpty ?? $0.transactionId ?? "" },
            date: { $0.purchaseDate.map { Timestamp($0).millisecondsSince1970 } }
        ).compactMap { $0.transactionId?.trimmedNonEmpty }
    }
}
