/// Written only: grant produces entitlements, and their readers (webhook delivery, tools)
/// are off the per-purchase path.
extension EntitlementEvent: FastJSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("action", self.action)
        json.field("bundleId", self.bundleId)
        json.field("environment", self.environment)
        json.field("eventId", self.eventId)
        json.fieldOrNull("expiresDate", self.expiresDate)
        json.field("matchedBy", self.matchedBy)
        json.fieldOrNull("orderId", self.orderId)
        json.field("originalTransactionId", self.originalTransactionId)
        json.field("productId", self.productId)
        json.fieldOrNull("productType", self.productType)
        json.fieldOrNull("purchaseDate", self.purchaseDate)
        json.field("quantity", self.quantity)
        json.fieldOrNull("revocationDate", self.revocationDate)
        json.field("schema", self.schema)
        json.field("source", self.source)
        json.field("transactionId", self.transactionId)
        json.field("userId", self.userId)
        json.warnings(self.warnings)
        json.endObject()
    }
}
