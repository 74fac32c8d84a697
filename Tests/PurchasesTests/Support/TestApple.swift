import Foundation
import Purchases
import TestSupport

/// An App Store stand-in for tests: a signing chain, builders for the signed data Apple
/// produces, and verifier configurations that trust the chain.
struct TestApple: Sendable {
    static let bundleId = "com.example.game"
    static let appAppleId: Int64 = 1234

    let chain: TestSigningChain

    init() throws {
        self.chain = try TestSigningChain()
    }

    func configuration(
        policy: EnvironmentPolicy = .init(),
        bundleId: String = TestApple.bundleId,
        receiptValidation: VerifyConfiguration.ReceiptValidation = .serverAPI
    ) throws -> VerifyConfiguration {
        VerifyConfiguration(
            bundleId: bundleId,
            appAppleId: Self.appAppleId,
            rootCertificates: [try self.chain.rootDER],
            environmentPolicy: policy,
            receiptValidation: receiptValidation
        )
    }

    func sign(_ transaction: TransactionSpec) throws -> String {
        try self.chain.sign(transaction.payload)
    }

    /// A notification V2 with the transaction (and renewal info) signed by the same chain.
    func notification(
        _ type: String,
        subtype: String? = nil,
        uuid: String = UUID().uuidString.lowercased(),
        transaction: TransactionSpec?,
        renewal: [String: any Sendable]? = nil,
        environment: String = "Sandbox",
        bundleId: String = TestApple.bundleId
    ) throws -> String {
        var data: [String: any Sendable] = [
            "environment": environment, "bundleId": bundleId, "appAppleId": Self.appAppleId,
        ]
        if let transaction { data["signedTransactionInfo"] = try self.sign(transaction) }
        if let renewal {
            var info = renewal
            info["environment"] = environment
            info["signedDate"] = transaction?.signedDate ?? 1_763_000_000_000
            data["signedRenewalInfo"] = try self.chain.sign(info)
        }
        var payload: [String: any Sendable] = [
            "notificationType": type, "notificationUUID": uuid, "version": "2.0",
            "signedDate": transaction?.signedDate ?? 1_763_000_000_000, "data": data,
        ]
        if let subtype { payload["subtype"] = subtype }
        return try self.chain.sign(payload)
    }
}

/// The fields of a transaction Apple would sign.
struct TransactionSpec: Sendable {
    var transactionId = "2000000000000001"
    var originalTransactionId: String?
    var bundleId = TestApple.bundleId
    var productId = "gems_100"
    var type = "Consumable"
    var quantity = 1
    var environment = "Sandbox"
    var appAccountToken: String?
    var purchaseDate: Int64 = 1_763_000_000_000
    var expiresDate: Int64?
    var signedDate: Int64 = 1_763_000_001_000
    var revocationDate: Int64?
    var isUpgraded: Bool?
    var inAppOwnershipType = "PURCHASED"
    var price: Int64?
    var currency: String?
    var storefront: String?
    var offerType: Int?
    var offerIdentifier: String?

    var payload: [String: any Sendable] {
        var payload: [String: any Sendable] = [
            "transactionId": self.transactionId,
            "originalTransactionId": self.originalTransactionId ?? self.transactionId,
            "bundleId": self.bundleId,
            "productId": self.productId,
            "type": self.type,
            "quantity": self.quantity,
            "environment": self.environment,
            "purchaseDate": self.purchaseDate,
            "originalPurchaseDate": self.purchaseDate,
            "signedDate": self.signedDate,
            "inAppOwnershipType": self.inAppOwnershipType,
        ]
        if let appAccountToken { payload["appAccountToken"] = appAccountToken }
        if let expiresDate { payload["expiresDate"] = expiresDate }
        if let revocationDate {
            payload["revocationDate"] = revocationDate
            payload["revocationReason"] = 0
        }
        if let isUpgraded { payload["isUpgraded"] = isUpgraded }
        if let price { payload["price"] = price }
        if let currency { payload["currency"] = currency }
        if let storefront { payload["storefront"] = storefront }
        if let offerType { payload["offerType"] = offerType }
        if let offerIdentifier { payload["offerIdentifier"] = offerIdentifier }
        return payload
    }
}
