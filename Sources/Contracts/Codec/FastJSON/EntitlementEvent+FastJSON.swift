import AppStoreModels
public import Basics

/// Grant writes every change and the state stage reads every one (D49): both on the
/// per-purchase path. The reader was the state stage's largest single cost through
/// `JSONDecoder` (docs/performance.md, session 19).
extension EntitlementEvent: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("action", self.action)
        json.fieldOrNull("advancedCommerceInfo", encoding: self.advancedCommerceInfo)
        json.fieldOrNull("autoRenewStatus", self.autoRenewStatus)
        json.field("bundleId", self.bundleId)
        json.fieldOrNull("commitmentInfo", encoding: self.commitmentInfo)
        json.fieldOrNull("currency", self.currency)
        json.field("environment", self.environment)
        json.field("eventId", self.eventId)
        json.fieldOrNull("expirationIntent", self.expirationIntent)
        json.fieldOrNull("expiresDate", self.expiresDate)
        json.fieldOrNull("gracePeriodExpiresDate", self.gracePeriodExpiresDate)
        json.field("matchedBy", self.matchedBy)
        json.fieldOrNull("offerIdentifier", self.offerIdentifier)
        json.fieldOrNull("offerType", self.offerType)
        json.fieldOrNull("orderId", self.orderId)
        json.fieldOrNull("originalApplicationVersion", self.originalApplicationVersion)
        json.field("originalTransactionId", self.originalTransactionId)
        json.fieldOrNull("price", self.price)
        json.field("productId", self.productId)
        json.fieldOrNull("productType", self.productType)
        json.fieldOrNull("purchaseDate", self.purchaseDate)
        json.field("quantity", self.quantity)
        json.fieldOrNull("revocationDate", self.revocationDate)
        json.fieldOrNull("revocationReason", self.revocationReason)
        json.field("schema", self.schema)
        json.fieldOrNull("sequence", self.sequence.map(Int64.init))
        json.field("source", self.source)
        json.fieldOrNull("status", self.status)
        json.fieldOrNull("storefront", self.storefront)
        json.field("transactionId", self.transactionId)
        json.field("userId", self.userId)
        json.warnings(self.warnings)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var schema: String?
        var eventId: String?
        var action: EntitlementAction?
        var userId: String?
        var bundleId: String?
        var productId: String?
        var quantity: Int?
        var transactionId: String?
        var originalTransactionId: String?
        var environment: AppStoreEnvironment?
        var matchedBy: MatchedBy?
        var warnings: [MatchWarning]?
        var source: PurchaseSource?
        var event = EntitlementEvent(
            eventId: "", action: .grant, userId: "", orderId: nil, bundleId: "", productId: "", productType: nil,
            quantity: 0, transactionId: "", originalTransactionId: "", environment: .production, purchaseDate: nil,
            expiresDate: nil, revocationDate: nil, matchedBy: .user, warnings: [], source: .storeKit2)
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "schema": schema = try json.string()
            case "eventId": eventId = try json.string()
            case "action": action = try json.raw(EntitlementAction.self)
            case "userId": userId = try json.string()
            case "orderId": event.orderId = try json.optionalString()
            case "bundleId": bundleId = try json.string()
            case "productId": productId = try json.string()
            case "productType": event.productType = try json.optionalRaw()
            case "quantity": quantity = try json.int()
            case "transactionId": transactionId = try json.string()
            case "originalTransactionId": originalTransactionId = try json.string()
            case "environment": environment = try json.raw(AppStoreEnvironment.self)
            case "purchaseDate": event.purchaseDate = try json.optionalTimestamp()
            case "expiresDate": event.expiresDate = try json.optionalTimestamp()
            case "revocationDate": event.revocationDate = try json.optionalTimestamp()
            case "matchedBy": matchedBy = try json.raw(MatchedBy.self)
            case "warnings": warnings = try json.strings().map(MatchWarning.init(rawValue:))
            case "source": source = try json.raw(PurchaseSource.self)
            case "status": event.status = try json.optionalRaw()
            case "gracePeriodExpiresDate": event.gracePeriodExpiresDate = try json.optionalTimestamp()
            case "autoRenewStatus": event.autoRenewStatus = try json.optionalRaw()
            case "expirationIntent": event.expirationIntent = try json.optionalRaw()
            case "revocationReason": event.revocationReason = try json.optionalRaw()
            case "offerType": event.offerType = try json.optionalRaw()
            case "offerIdentifier": event.offerIdentifier = try json.optionalString()
            case "price": event.price = try json.optionalInt().map(Int64.init)
            case "currency": event.currency = try json.optionalString()
            case "storefront": event.storefront = try json.optionalString()
            case "sequence": event.sequence = try json.optionalInt()
            case "originalApplicationVersion": event.originalApplicationVersion = try json.optionalString()
            case "commitmentInfo": event.commitmentInfo = try json.optionalDecoded(TransactionCommitmentInfo.self)
            case "advancedCommerceInfo":
                event.advancedCommerceInfo = try json.optionalDecoded(AdvancedCommerceTransactionInfo.self)
            default: try json.skipValue()
            }
        }
        guard try JSONReader.required(schema, "schema") == Self.schema else {
            throw JSONReader.Failure(offset: -1, detail: "schema")
        }
        event.eventId = try JSONReader.required(eventId, "eventId")
        event.action = try JSONReader.required(action, "action")
        event.userId = try JSONReader.required(userId, "userId")
        event.bundleId = try JSONReader.required(bundleId, "bundleId")
        event.productId = try JSONReader.required(productId, "productId")
        event.quantity = try JSONReader.required(quantity, "quantity")
        event.transactionId = try JSONReader.required(transactionId, "transactionId")
        event.originalTransactionId = try JSONReader.required(originalTransactionId, "originalTransactionId")
        event.environment = try JSONReader.required(environment, "environment")
        event.matchedBy = try JSONReader.required(matchedBy, "matchedBy")
        event.warnings = try JSONReader.required(warnings, "warnings")
        event.source = try JSONReader.required(source, "source")
        self = event
    }
}
