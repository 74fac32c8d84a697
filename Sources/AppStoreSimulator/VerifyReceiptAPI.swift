import Foundation
import Hummingbird

/// A verifyReceipt answer that carries only a status (errors, environment redirects, faults).
struct VerifyReceiptStatusBody: Encodable, Sendable {
    var status: Int
    /// Apple's current docs spell it `is_retryable`; only 21100–21199 carry it.
    var isRetryable: Bool?

    init(status: Int) {
        self.status = status
        self.isRetryable = (21100...21199).contains(status) ? true : nil
    }

    enum CodingKeys: String, CodingKey {
        case status
        case isRetryable = "is_retryable"
    }
}

/// The legacy `POST /verifyReceipt` of `buy.itunes.apple.com` (production) and
/// `sandbox.itunes.apple.com` (sandbox), for receipts this simulator issued.
///
/// Statuses: 0 valid; 21000 body not JSON; 21002 receipt-data malformed; 21004 shared secret
/// mismatch (only when one is configured); 21007 sandbox receipt sent to production; 21008 the reverse.
struct VerifyReceiptAPI: Sendable {
    let store: Store
    let environment: String
    let sharedSecret: String?
    let receipts: ReceiptEncoder

    private struct RequestBody: Decodable {
        let receiptData: String?
        let password: String?
        let excludeOldTransactions: Bool?

        enum CodingKeys: String, CodingKey {
            case receiptData = "receipt-data"
            case password
            case excludeOldTransactions = "exclude-old-transactions"
        }
    }

    func register(on group: RouterGroup<some RequestContext>) {
        group.post("verifyReceipt") { request, _ in try await self.verify(request) }
    }

    func verify(_ request: Request) async throws -> Response {
        let body: RequestBody
        do {
            body = try await JSONResponse.decode(RequestBody.self, from: request)
        } catch {
            return try JSONResponse.make(body: VerifyReceiptStatusBody(status: 21000))
        }
        guard let text = body.receiptData,
            let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !bytes.isEmpty
        else { return try status(21002) }

        if let receipt = ReceiptReader.appReceipt(Array(bytes)) {
            return try await verifyAppReceipt(receipt, body: body)
        }
        if let outer = String(data: bytes, encoding: .utf8).flatMap(ReceiptReader.plistEntries),
            let info = outer["purchase-info"].flatMap({ Data(base64Encoded: $0) }),
            let inner = String(data: info, encoding: .utf8).flatMap(ReceiptReader.plistEntries)
        {
            return try verifyTransactionReceipt(outer: outer, inner: inner)
        }
        return try status(21002)
    }

    private func status(_ code: Int) throws -> Response {
        try JSONResponse.make(body: VerifyReceiptStatusBody(status: code))
    }

    /// Non-zero status when the receipt belongs to the other environment.
    private func environmentMismatch(receiptIsSandbox: Bool) -> Int? {
        let here = environment == AppleValues.Environment.sandbox
        if receiptIsSandbox == here { return nil }
        return receiptIsSandbox ? 21007 : 21008
    }

    // MARK: App receipts

    private struct AppReceiptResponse: Encodable {
        var status = 0
        var environment: String
        var receipt: ReceiptBody
        var latestReceiptInfo: [[String: String]]
        var latestReceipt: String?
        var pendingRenewalInfo: [[String: String]]

        enum CodingKeys: String, CodingKey {
            case status, environment, receipt
            case latestReceiptInfo = "latest_receipt_info"
            case latestReceipt = "latest_receipt"
            case pendingRenewalInfo = "pending_renewal_info"
        }
    }

    private struct ReceiptBody: Encodable {
        var receiptType: String
        var bundleId: String
        var applicationVersion = "1"
        var originalApplicationVersion = "1.0"
        var receiptCreationDate: String
        var requestDateMs: String
        var inApp: [[String: String]]

        enum CodingKeys: String, CodingKey {
            case receiptType = "receipt_type"
            case bundleId = "bundle_id"
            case applicationVersion = "application_version"
            case originalApplicationVersion = "original_application_version"
            case receiptCreationDate = "receipt_creation_date"
            case requestDateMs = "request_date_ms"
            case inApp = "in_app"
        }
    }

    private func verifyAppReceipt(_ receipt: ReceiptReader.AppReceipt, body: RequestBody) async throws -> Response {
        if let mismatch = environmentMismatch(receiptIsSandbox: receipt.environment != "Production") {
            return try status(mismatch)
        }
        var latest: [SimulatedTransactionPayload] = []
        var pending: [[String: String]] = []
        var seen = Set<String>()
        for record in receipt.inApp where seen.insert(record.originalTransactionId).inserted {
            let chain = await store.chainTransactions(record.originalTransactionId)
                .filter { $0.environment == environment && $0.type != AppleValues.ProductType.consumable }
            guard let last = chain.last else { continue }
            latest += body.excludeOldTransactions == true ? [last] : chain
            if last.type == AppleValues.ProductType.autoRenewable,
                let state = await store.renewalState(record.originalTransactionId)
            {
                var info = [
                    "auto_renew_product_id": last.productId, "product_id": last.productId,
                    "original_transaction_id": last.originalTransactionId,
                    "auto_renew_status": state.autoRenew ? "1" : "0",
                ]
                if state.expired { info["expiration_intent"] = "1" }
                pending.append(info)
            }
        }
        let hasSubscription = latest.contains { $0.type == AppleValues.ProductType.autoRenewable }
        if hasSubscription, let sharedSecret, body.password != sharedSecret {
            return try status(21004)
        }
        let latestReceipt =
            latest.isEmpty
            ? nil
            : try receipts.appReceipt(
                environment: environment, bundleId: receipt.bundleId, transactions: latest, createdAt: Date()
            )
        let response = AppReceiptResponse(
            environment: environment,
            receipt: ReceiptBody(
                receiptType: receipt.environment, bundleId: receipt.bundleId,
                receiptCreationDate: receipt.creationDate,
                requestDateMs: String(Store.milliseconds(Date())),
                inApp: receipt.inApp.map(Self.inAppItem)
            ),
            latestReceiptInfo: latest.sorted { $0.purchaseDate < $1.purchaseDate }.map(Self.latestItem),
            latestReceipt: latestReceipt,
            pendingRenewalInfo: pending
        )
        return try JSONResponse.make(body: response)
    }

    private static func inAppItem(_ record: ReceiptReader.InAppRecord) -> [String: String] {
        var item = [
            "quantity": String(record.quantity), "product_id": record.productId,
            "transaction_id": record.transactionId, "original_transaction_id": record.originalTransactionId,
            "purchase_date": record.purchaseDate, "original_purchase_date": record.originalPurchaseDate,
            "is_trial_period": "false",
        ]
        item["expires_date"] = record.expiresDate
        item["web_order_line_item_id"] = record.webOrderLineItemId.map(String.init)
        item["cancellation_date"] = record.cancellationDate
        return item
    }

    private static func latestItem(_ transaction: SimulatedTransactionPayload) -> [String: String] {
        var item = [
            "quantity": String(transaction.quantity), "product_id": transaction.productId,
            "transaction_id": transaction.transactionId,
            "original_transaction_id": transaction.originalTransactionId,
            "purchase_date": ReceiptEncoder.legacyDate(transaction.purchaseDate, pacific: false),
            "purchase_date_ms": String(transaction.purchaseDate),
            "original_purchase_date": ReceiptEncoder.legacyDate(transaction.originalPurchaseDate, pacific: false),
            "original_purchase_date_ms": String(transaction.originalPurchaseDate),
            "in_app_ownership_type": transaction.inAppOwnershipType,
            "is_trial_period": "false",
        ]
        if let expires = transaction.expiresDate {
            item["expires_date"] = ReceiptEncoder.legacyDate(expires, pacific: false)
            item["expires_date_ms"] = String(expires)
        }
        item["web_order_line_item_id"] = transaction.webOrderLineItemId
        item["subscription_group_identifier"] = transaction.subscriptionGroupIdentifier
        if let revoked = transaction.revocationDate {
            item["cancellation_date"] = ReceiptEncoder.legacyDate(revoked, pacific: false)
            item["cancellation_date_ms"] = String(revoked)
            item["cancellation_reason"] = String(transaction.revocationReason ?? 0)
        }
        if transaction.isUpgraded == true { item["is_upgraded"] = "true" }
        return item
    }

    // MARK: Transaction receipts (StoreKit 1, iOS 6 style)

    private struct TransactionReceiptResponse: Encodable {
        var status = 0
        var environment: String
        var receipt: [String: String]
    }

    /// iOS 6 style answer: `receipt` is the purchase-info plist with `_` for `-` in keys.
    private func verifyTransactionReceipt(outer: [String: String], inner: [String: String]) throws -> Response {
        if let mismatch = environmentMismatch(receiptIsSandbox: outer["environment"] == "Sandbox") {
            return try status(mismatch)
        }
        guard inner["transaction-id"] != nil else { return try status(21002) }
        let receipt = Dictionary(
            uniqueKeysWithValues: inner.map { ($0.key.replacingOccurrences(of: "-", with: "_"), $0.value) })
        return try JSONResponse.make(body: TransactionReceiptResponse(environment: environment, receipt: receipt))
    }
}
