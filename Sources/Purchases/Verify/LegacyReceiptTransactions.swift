import AppStore
import AppStoreModels
import Contracts

/// Transactions from a verifyReceipt answer (Apple checked the receipt; the answer came over
/// TLS from Apple, so its fields are as trusted as a signed transaction's).
enum LegacyReceiptTransactions {
    static func transactions(
        in response: VerifyReceiptResponse,
        environment: AppStoreEnvironment,
        bundleId: String
    ) throws(Rejection) -> [TransactionDetails] {
        guard let receipt = response.receipt else {
            throw Rejection(.receiptInvalid, "verifyReceipt answered status \(response.status) without a receipt")
        }
        if let receiptBundle = receipt.bundleId, receiptBundle != bundleId {
            throw Rejection(.wrongBundle, "verifyReceipt bundle_id '\(receiptBundle)' is not \(bundleId)")
        }
        // latest_receipt_info is Apple's current view (renewals, cancellations) and wins for
        // ids in both; the receipt's in_app adds finished consumables that view leaves out.
        var order: [String] = []
        var byId: [String: VerifyReceiptResponse.InApp] = [:]
        for record in (receipt.inApp ?? []) + (response.latestReceiptInfo ?? []) {
            guard let id = record.transactionId?.trimmedNonEmpty else { continue }
            if byId[id] == nil { order.append(id) }
            byId[id] = record
        }
        let latest = LatestPerPurchase.select(
            order.compactMap { byId[$0] },
            purchase: { $0.originalTransactionId?.trimmedNonEmpty ?? $0.transactionId ?? "" },
            date: { $0.purchaseDateMs.flatMap { Int64($0) } }
        )
        return latest.compactMap { record in
            guard let id = record.transactionId?.trimmedNonEmpty, let productId = record.productId?.trimmedNonEmpty
            else { return nil }
            return TransactionDetails(
                transactionId: id,
                originalTransactionId: record.originalTransactionId?.trimmedNonEmpty ?? id,
                bundleId: bundleId,
                productId: productId,
                // verifyReceipt names no product type; only subscriptions have an expiry.
                productType: record.expiresDateMs == nil ? nil : .autoRenewableSubscription,
                quantity: record.quantity.flatMap { Int($0) } ?? 1,
                environment: environment,
                purchaseDate: Self.timestamp(record.purchaseDateMs),
                expiresDate: Self.timestamp(record.expiresDateMs),
                revocationDate: Self.timestamp(record.cancellationDateMs),
                inAppOwnershipType: record.inAppOwnershipType.map(InAppOwnershipType.init(rawValue:)),
                webOrderLineItemId: record.webOrderLineItemId
            )
        }
    }

    private static func timestamp(_ milliseconds: String?) -> Timestamp? {
        milliseconds.flatMap { Int64($0) }.map(Timestamp.init(millisecondsSince1970:))
    }
}
