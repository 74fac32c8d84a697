import AppStoreModels
public import Basics

extension TransactionDetails: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("advancedCommerceInfo", encoding: self.advancedCommerceInfo)
        json.field("appAccountToken", self.appAccountToken)
        json.field("bundleId", self.bundleId)
        json.field("commitmentInfo", encoding: self.commitmentInfo)
        json.field("currency", self.currency)
        json.field("environment", self.environment)
        json.field("expiresDate", self.expiresDate)
        json.field("inAppOwnershipType", self.inAppOwnershipType)
        json.field("isUpgraded", self.isUpgraded)
        json.field("offerIdentifier", self.offerIdentifier)
        json.field("offerType", self.offerType)
        json.field("originalApplicationVersion", self.originalApplicationVersion)
        json.field("originalPurchaseDate", self.originalPurchaseDate)
        json.field("originalTransactionId", self.originalTransactionId)
        json.field("price", self.price.map(Int.init))
        json.field("productId", self.productId)
        json.field("productType", self.productType)
        json.field("purchaseDate", self.purchaseDate)
        json.field("quantity", self.quantity)
        json.field("revocationDate", self.revocationDate)
        json.field("revocationReason", self.revocationReason)
        json.field("signedDate", self.signedDate)
        json.field("storefront", self.storefront)
        json.field("subscriptionGroupIdentifier", self.subscriptionGroupIdentifier)
        json.field("transactionId", self.transactionId)
        json.field("webOrderLineItemId", self.webOrderLineItemId)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var transactionId: String?
        var originalTransactionId: String?
        var bundleId: String?
        var productId: String?
        var quantity: Int?
        var environment: AppStoreEnvironment?
        var details = TransactionDetails(
            transactionId: "", originalTransactionId: "", bundleId: "", productId: "", productType: nil,
            environment: .production)
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "transactionId": transactionId = try json.string()
            case "originalTransactionId": originalTransactionId = try json.string()
            case "bundleId": bundleId = try json.string()
            case "productId": productId = try json.string()
            case "productType": details.productType = try json.optionalRaw()
            case "quantity": quantity = try json.int()
            case "purchaseDate": details.purchaseDate = try json.optionalTimestamp()
            case "originalPurchaseDate": details.originalPurchaseDate = try json.optionalTimestamp()
            case "expiresDate": details.expiresDate = try json.optionalTimestamp()
            case "revocationDate": details.revocationDate = try json.optionalTimestamp()
            case "revocationReason": details.revocationReason = try json.optionalRaw()
            case "appAccountToken": details.appAccountToken = try json.optionalString()
            case "environment": environment = try json.raw(AppStoreEnvironment.self)
            case "inAppOwnershipType": details.inAppOwnershipType = try json.optionalRaw()
            case "isUpgraded": details.isUpgraded = try json.optionalBool()
            case "signedDate": details.signedDate = try json.optionalTimestamp()
            case "webOrderLineItemId": details.webOrderLineItemId = try json.optionalString()
            case "subscriptionGroupIdentifier": details.subscriptionGroupIdentifier = try json.optionalString()
            case "price": details.price = try json.optionalInt().map(Int64.init)
            case "currency": details.currency = try json.optionalString()
            case "storefront": details.storefront = try json.optionalString()
            case "offerType": details.offerType = try json.optionalRaw()
            case "offerIdentifier": details.offerIdentifier = try json.optionalString()
            case "originalApplicationVersion": details.originalApplicationVersion = try json.optionalString()
            case "commitmentInfo": details.commitmentInfo = try json.optionalDecoded(TransactionCommitmentInfo.self)
            case "advancedCommerceInfo":
                details.advancedCommerceInfo = try json.optionalDecoded(AdvancedCommerceTransactionInfo.self)
            default: try json.skipValue()
            }
        }
        details.transactionId = try JSONReader.required(transactionId, "transactionId")
        details.originalTransactionId = try JSONReader.required(originalTransactionId, "originalTransactionId")
        details.bundleId = try JSONReader.required(bundleId, "bundleId")
        details.productId = try JSONReader.required(productId, "productId")
        details.quantity = try JSONReader.required(quantity, "quantity")
        details.environment = try JSONReader.required(environment, "environment")
        self = details
    }
}
