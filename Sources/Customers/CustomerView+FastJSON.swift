public import Contracts

/// The read API's answer through the hand-written writer (D17), byte for byte the `Codable` form
/// (`CustomerJSONTests`): `JSONEncoder` took a seventh of the API's CPU (docs/performance.md).
extension CustomerView: FastJSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("bundleId", self.bundleId)
        json.key("credits")
        json.beginObject()
        for (currency, credit) in self.credits.sorted(by: { $0.key < $1.key }) {
            json.key(currency)
            credit.write(to: &json)
        }
        json.endObject()
        json.key("entitlements")
        json.beginArray()
        for entitlement in self.entitlements {
            json.element()
            entitlement.write(to: &json)
        }
        json.endArray()
        json.field("lastEventId", self.lastEventId)
        json.key("purchases")
        json.beginArray()
        for purchase in self.purchases {
            json.element()
            purchase.write(to: &json)
        }
        json.endArray()
        json.field("unlistedProducts", self.unlistedProducts)
        json.field("userId", self.userId)
        json.endObject()
    }
}

extension CustomerView.Entitlement: FastJSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("environment", self.environment)
        json.field("expiresDate", self.expiresDate)
        json.field("hasAccess", self.hasAccess)
        json.field("id", self.id)
        json.field("originalTransactionId", self.originalTransactionId)
        json.field("productId", self.productId)
        json.field("since", self.since)
        json.field("status", self.status)
        json.field("willRenew", self.willRenew)
        json.endObject()
    }
}

extension CustomerView.OneTimePurchase: FastJSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("environment", self.environment)
        json.field("expiresDate", self.expiresDate)
        json.field("originalTransactionId", self.originalTransactionId)
        json.field("productId", self.productId)
        json.field("productType", self.productType)
        json.field("purchaseDate", self.purchaseDate)
        json.field("status", self.status)
        json.field("transactionId", self.transactionId)
        json.endObject()
    }
}

extension CustomerView.Credit: FastJSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("received", self.received)
        json.field("revoked", self.revoked)
        json.endObject()
    }
}
