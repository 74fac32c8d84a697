import Basics

/// A signed payload `CompactJWS` reads with `JSONReader` before `JSONDecoder` (D63): verify
/// decodes one transaction per purchase, and `JSONDecoder` was a twentieth of its CPU.
package protocol HandReadPayload {
    /// The payload, or nil when the reader is not sure of its input (an unexpected type, a
    /// duplicate or escaped key, a nested model): `JSONDecoder` then decides, with its refusal.
    static func read(_ json: [UInt8]) -> Self?
}

extension JWSTransactionDecodedPayload: HandReadPayload {
    package static func read(_ json: [UInt8]) -> Self? {
        JSONReader.object(json, into: Self()) { reader, key, payload throws(JSONReader.Failure) in
            switch key {
            case "transactionId": payload.transactionId = try reader.optionalString()
            case "originalTransactionId": payload.originalTransactionId = try reader.optionalString()
            case "webOrderLineItemId": payload.webOrderLineItemId = try reader.optionalString()
            case "bundleId": payload.bundleId = try reader.optionalString()
            case "productId": payload.productId = try reader.optionalString()
            case "subscriptionGroupIdentifier": payload.subscriptionGroupIdentifier = try reader.optionalString()
            case "purchaseDate": payload.purchaseDate = try reader.optionalMilliseconds()
            case "originalPurchaseDate": payload.originalPurchaseDate = try reader.optionalMilliseconds()
            case "expiresDate": payload.expiresDate = try reader.optionalMilliseconds()
            case "quantity": payload.quantity = try reader.optionalInt32()
            case "type": payload.type = try reader.optionalString().map(ProductType.init(rawValue:))
            case "appAccountToken": payload.appAccountToken = try reader.optionalString()
            case "inAppOwnershipType":
                payload.inAppOwnershipType = try reader.optionalString().map(InAppOwnershipType.init(rawValue:))
            case "signedDate": payload.signedDate = try reader.optionalMilliseconds()
            case "revocationReason":
                payload.revocationReason = try reader.optionalInt32().map(RevocationReason.init(rawValue:))
            case "revocationDate": payload.revocationDate = try reader.optionalMilliseconds()
            case "revocationType":
                payload.revocationType = try reader.optionalString().map(RevocationType.init(rawValue:))
            case "revocationPercentage": payload.revocationPercentage = try reader.optionalInt32()
            case "isUpgraded": payload.isUpgraded = try reader.optionalBool()
            case "offerType": payload.offerType = try reader.optionalInt32().map(OfferType.init(rawValue:))
            case "offerIdentifier": payload.offerIdentifier = try reader.optionalString()
            case "environment":
                payload.environment = try reader.optionalString().map(AppStoreEnvironment.init(rawValue:))
            case "storefront": payload.storefront = try reader.optionalString()
            case "storefrontId": payload.storefrontId = try reader.optionalString()
            case "transactionReason":
                payload.transactionReason = try reader.optionalString().map(TransactionReason.init(rawValue:))
            case "currency": payload.currency = try reader.optionalString()
            case "price": payload.price = try reader.optionalInt().map(Int64.init)
            case "offerDiscountType":
                payload.offerDiscountType = try reader.optionalString().map(OfferDiscountType.init(rawValue:))
            case "appTransactionId": payload.appTransactionId = try reader.optionalString()
            case "offerPeriod": payload.offerPeriod = try reader.optionalString()
            case "billingPlanType":
                payload.billingPlanType = try reader.optionalString().map(BillingPlanType.init(rawValue:))
            case "commitmentInfo", "advancedCommerceInfo":
                // Nested models, as rare as they are deep (D59): the whole payload goes to
                // JSONDecoder, which reads them.
                throw JSONReader.Failure(offset: -1, detail: "a nested model")
            default: try reader.skipValue()
            }
        }
    }
}

extension JSONReader {
    /// What `decodeIfPresent(Int32.self, …)` reads: a number out of range is left to it.
    fileprivate mutating func optionalInt32() throws(Failure) -> Int32? {
        guard let value = try self.optionalInt() else { return nil }
        guard let exact = Int32(exactly: value) else { throw Failure(offset: -1, detail: "not an Int32") }
        return exact
    }

    /// A `Timestamp` as Apple writes it, whole milliseconds (``Timestamp/JSONForm/milliseconds``);
    /// a fractional one is left to `JSONDecoder`.
    fileprivate mutating func optionalMilliseconds() throws(Failure) -> Timestamp? {
        try self.optionalInt().map { Timestamp(millisecondsSince1970: Int64($0)) }
    }
}
