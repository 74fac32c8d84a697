import AppStoreModels
public import Basics

extension VerifiedTransaction: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("hints", self.hints)
        json.field("notification", self.notification)
        json.field("receivedAt", self.receivedAt)
        json.field("renewal", self.renewal)
        json.field("schema", self.schema)
        json.field("source", self.source)
        json.field("transaction", self.transaction)
        json.field("verifiedAt", self.verifiedAt)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var schema: String?
        var transaction: TransactionDetails?
        var notification: NotificationContext?
        var renewal: RenewalDetails?
        var hints: PublisherHints?
        var source: PurchaseSource?
        var receivedAt: Timestamp?
        var verifiedAt: Timestamp?
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "schema": schema = try json.string()
            case "transaction": transaction = try TransactionDetails(from: &json)
            case "notification": notification = try json.optional()
            case "renewal": renewal = try json.optional()
            case "hints": hints = try PublisherHints(from: &json)
            case "source": source = try json.raw(PurchaseSource.self)
            case "receivedAt": receivedAt = try json.timestamp()
            case "verifiedAt": verifiedAt = try json.timestamp()
            default: try json.skipValue()
            }
        }
        guard try JSONReader.required(schema, "schema") == Self.schema else {
            throw JSONReader.Failure(offset: -1, detail: "schema")
        }
        self.init(
            transaction: try JSONReader.required(transaction, "transaction"),
            hints: try JSONReader.required(hints, "hints"),
            source: try JSONReader.required(source, "source"),
            receivedAt: try JSONReader.required(receivedAt, "receivedAt"),
            verifiedAt: try JSONReader.required(verifiedAt, "verifiedAt"),
            notification: notification,
            renewal: renewal
        )
    }
}

extension NotificationContext: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("notificationType", self.notificationType)
        json.field("notificationUUID", self.notificationUUID)
        json.field("signedDate", self.signedDate)
        json.field("subtype", self.subtype)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var notificationType: NotificationTypeV2?
        var subtype: NotificationSubtype?
        var notificationUUID: String?
        var signedDate: Timestamp?
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "notificationType": notificationType = try json.raw(NotificationTypeV2.self)
            case "subtype": subtype = try json.optionalRaw()
            case "notificationUUID": notificationUUID = try json.string()
            case "signedDate": signedDate = try json.optionalTimestamp()
            default: try json.skipValue()
            }
        }
        self.init(
            notificationType: try JSONReader.required(notificationType, "notificationType"),
            subtype: subtype,
            notificationUUID: try JSONReader.required(notificationUUID, "notificationUUID"),
            signedDate: signedDate
        )
    }
}

extension RenewalDetails: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("advancedCommerceInfo", encoding: self.advancedCommerceInfo)
        json.field("autoRenewProductId", self.autoRenewProductId)
        json.field("autoRenewStatus", self.autoRenewStatus)
        json.field("commitmentInfo", encoding: self.commitmentInfo)
        json.field("expirationIntent", self.expirationIntent)
        json.field("gracePeriodExpiresDate", self.gracePeriodExpiresDate)
        json.field("isInBillingRetryPeriod", self.isInBillingRetryPeriod)
        json.field("offerIdentifier", self.offerIdentifier)
        json.field("offerType", self.offerType)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        self.init()
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "autoRenewProductId": self.autoRenewProductId = try json.optionalString()
            case "autoRenewStatus": self.autoRenewStatus = try json.optionalRaw()
            case "expirationIntent": self.expirationIntent = try json.optionalRaw()
            case "isInBillingRetryPeriod": self.isInBillingRetryPeriod = try json.optionalBool()
            case "gracePeriodExpiresDate": self.gracePeriodExpiresDate = try json.optionalTimestamp()
            case "offerType": self.offerType = try json.optionalRaw()
            case "offerIdentifier": self.offerIdentifier = try json.optionalString()
            case "commitmentInfo": self.commitmentInfo = try json.optionalDecoded(RenewalCommitmentInfo.self)
            case "advancedCommerceInfo":
                self.advancedCommerceInfo = try json.optionalDecoded(AdvancedCommerceRenewalInfo.self)
            default: try json.skipValue()
            }
        }
    }
}
