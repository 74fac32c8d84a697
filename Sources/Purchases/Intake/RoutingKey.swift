import AppStore
import AppStoreModels
import Basics
import Contracts
import Foundation

/// Routing keys for `iap.verify`, read from the Apple artefact *without verification*.
///
/// Only the Kafka key depends on this: verify trusts nothing decoded here. Keying on
/// originalTransactionId puts StoreKit 2, StoreKit 1 and notification deliveries of one
/// purchase in one verify lane, so the second of them finds the first one's result in the
/// cache instead of asking Apple again.
enum RoutingKey {
    /// originalTransactionId, else transactionId, of an unverified signed transaction.
    static func forSignedTransaction(_ jws: String) throws(VerificationError) -> String? {
        let ids = try UnverifiedJWS(jws).decodePayload(as: TransactionIds.self)
        return Self.preferred(ids.originalTransactionId, ids.transactionId)
    }

    /// The two fields routing needs: materialising the whole decoded transaction for them
    /// cost intake as much as the rest of its work.
    private struct TransactionIds: Decodable, HandReadPayload {
        var originalTransactionId: String?
        var transactionId: String?

        /// The ids through `JSONReader` (`JSONDecoder` was a tenth of intake's CPU); nil when
        /// the reader gives up, and `JSONDecoder` decides as before, with its refusal.
        static func read(_ payload: [UInt8]) -> Self? {
            JSONReader.object(payload, into: Self()) { reader, key, ids throws(JSONReader.Failure) in
                switch key {
                case "originalTransactionId": ids.originalTransactionId = try reader.optionalString()
                case "transactionId": ids.transactionId = try reader.optionalString()
                default: try reader.skipValue()
                }
            }
        }
    }

    /// `app-<appTransactionId>` of an unverified AppTransaction: the id verify gives the app's
    /// own purchase (D58), so the same customer's AppTransactions share a lane.
    static func forAppTransaction(_ jws: String) throws(VerificationError) -> String? {
        let ids = try UnverifiedJWS(jws).decodePayload(as: AppTransactionIds.self)
        return ids.appTransactionId?.trimmedNonEmpty.map { TransactionDetails.appPurchaseId(appTransactionId: $0) }
    }

    private struct AppTransactionIds: Decodable {
        var appTransactionId: String?
    }

    /// The record with the latest purchase date decides: it is the purchase the app just
    /// uploaded the receipt for. nil when the receipt does not decode locally (verifyReceipt
    /// may still accept it) or holds no usable ids (Xcode's "0").
    static func forAppReceipt(_ base64: String) -> String? {
        guard let receipt = try? AppReceiptDecoder.decode(base64: base64) else { return nil }
        let records = receipt.inApp.filter { record in
            guard let id = record.transactionId else { return false }
            return !id.isEmpty && id != "0"
        }
        let latest = records.enumerated().max { lhs, rhs in
            let left = lhs.element.purchaseDate ?? .distantPast
            let right = rhs.element.purchaseDate ?? .distantPast
            return left == right ? lhs.offset < rhs.offset : left < right
        }?.element
        return latest.flatMap { Self.preferred($0.originalTransactionId, $0.transactionId) }
    }

    static func forTransactionReceipt(_ base64: String) -> String? {
        guard let receipt = try? TransactionReceiptDecoder.decode(base64: base64) else { return nil }
        return Self.preferred(receipt.originalTransactionId, receipt.transactionId)
    }

    /// The nested transaction's originalTransactionId/transactionId, else the notificationUUID.
    static func forNotification(_ payload: ResponseBodyV2DecodedPayload) -> String? {
        if let signed = payload.data?.signedTransactionInfo,
            let transaction = try? UnverifiedJWS(signed).decodePayload(as: TransactionIds.self),
            let key = Self.preferred(transaction.originalTransactionId, transaction.transactionId)
        {
            return key
        }
        return payload.notificationUUID?.trimmedNonEmpty
    }

    private static func preferred(_ first: String?, _ second: String?) -> String? {
        first?.trimmedNonEmpty ?? second?.trimmedNonEmpty
    }
}
