public import Foundation

/// The fields of a PKCS#7 app receipt (`appStoreReceiptURL`), decoded without verification.
public struct AppReceipt: Codable, Hashable, Sendable {
    /// "Production", "ProductionSandbox" or "Xcode" (attribute 0).
    public var environment: String?
    /// Attribute 1; 0 in sandbox.
    public var appItemId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    public var originalApplicationVersion: String?
    public var creationDate: Date?
    public var expirationDate: Date?
    public var inApp: [InAppPurchaseRecord]

    public init(inApp: [InAppPurchaseRecord] = []) {
        self.inApp = inApp
    }

    /// Transaction ids in receipt order, leaving out Xcode's placeholder "0", which no Apple
    /// API knows.
    public var lookupTransactionIds: [String] {
        self.inApp.compactMap(\.transactionId).filter { !$0.isEmpty && $0 != "0" }
    }
}

/// One in-app purchase record of an app receipt (attribute 17).
public struct InAppPurchaseRecord: Codable, Hashable, Sendable {
    public var quantity: Int64?
    public var productId: String?
    public var transactionId: String?
    public var originalTransactionId: String?
    public var purchaseDate: Date?
    public var originalPurchaseDate: Date?
    public var expiresDate: Date?
    public var webOrderLineItemId: Int64?
    public var cancellationDate: Date?
    public var isTrialPeriod: Bool?
    public var isInIntroOfferPeriod: Bool?
    public var promotionalOfferIdentifier: String?

    public init() {}
}
