public import Basics
public import Contracts

extension EntitlementState: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("autoRenewProductId", self.autoRenewProductId)
        json.field("autoRenewStatus", self.autoRenewStatus)
        json.field("changes", self.changes)
        json.field("expirationIntent", self.expirationIntent)
        json.field("expiresDate", self.expiresDate)
        json.field("gracePeriodExpiresDate", self.gracePeriodExpiresDate)
        json.field("orderId", self.orderId)
        json.field("originalTransactionId", self.originalTransactionId)
        json.field("productId", self.productId)
        json.field("productType", self.productType)
        json.field("purchaseDate", self.purchaseDate)
        json.field("revocationReason", self.revocationReason)
        json.field("revokedTransactionIds", self.revokedTransactionIds)
        json.field("signedDate", self.signedDate)
        json.field("status", self.status)
        json.field("transactionId", self.transactionId)
        json.field("userId", self.userId)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var originalTransactionId: String?
        var userId: String?
        var productId: String?
        var transactionId: String?
        var status: Status?
        var revokedTransactionIds: [String]?
        var state = EntitlementState(
            originalTransactionId: "", userId: "", orderId: nil, productId: "", productType: nil, transactionId: "",
            purchaseDate: nil, expiresDate: nil, status: .active, signedDate: nil
        )
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "originalTransactionId": originalTransactionId = try json.string()
            case "userId": userId = try json.string()
            case "orderId": state.orderId = try json.optionalString()
            case "productId": productId = try json.string()
            case "productType": state.productType = try json.optionalRaw()
            case "transactionId": transactionId = try json.string()
            case "purchaseDate": state.purchaseDate = try json.optionalTimestamp()
            case "expiresDate": state.expiresDate = try json.optionalTimestamp()
            case "status": status = try json.raw(Status.self)
            case "signedDate": state.signedDate = try json.optionalTimestamp()
            case "revokedTransactionIds": revokedTransactionIds = try json.strings()
            case "gracePeriodExpiresDate": state.gracePeriodExpiresDate = try json.optionalTimestamp()
            case "autoRenewStatus": state.autoRenewStatus = try json.optionalRaw()
            case "autoRenewProductId": state.autoRenewProductId = try json.optionalString()
            case "expirationIntent": state.expirationIntent = try json.optionalRaw()
            case "revocationReason": state.revocationReason = try json.optionalRaw()
            case "changes": state.changes = try json.int()
            default: try json.skipValue()
            }
        }
        state.originalTransactionId = try JSONReader.required(originalTransactionId, "originalTransactionId")
        state.userId = try JSONReader.required(userId, "userId")
        state.productId = try JSONReader.required(productId, "productId")
        state.transactionId = try JSONReader.required(transactionId, "transactionId")
        state.status = try JSONReader.required(status, "status")
        state.revokedTransactionIds = try JSONReader.required(revokedTransactionIds, "revokedTransactionIds")
        self = state
    }
}
