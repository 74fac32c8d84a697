import AppStoreModels
public import Basics
public import Contracts

/// The customer state's record through the hand-written JSON of the events (D17): it is read
/// and written on every change the state stage folds and read on every request of the read API,
/// where `Codable` took a fifth of the API's CPU (docs/performance.md, `bench api`).
/// `CustomerJSONTests` hold both to the `Codable` form byte for byte.
extension CustomerRecord: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("bundleId", self.bundleId)
        json.key("purchases")
        json.beginObject()
        for (originalTransactionId, purchase) in self.purchases.sorted(by: { $0.key < $1.key }) {
            json.key(originalTransactionId)
            purchase.write(to: &json)
        }
        json.endObject()
        json.field("schema", self.schema)
        json.field("userId", self.userId)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var schema: String?
        var bundleId: String?
        var userId: String?
        var purchases: [String: PurchaseRecord]?
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "schema": schema = try json.string()
            case "bundleId": bundleId = try json.string()
            case "userId": userId = try json.string()
            case "purchases":
                var read: [String: PurchaseRecord] = [:]
                try json.beginObject()
                while let id = try json.nextKey() {
                    guard let id = id.string else {
                        throw JSONReader.Failure(offset: -1, detail: "a purchase key is not UTF-8")
                    }
                    read[id] = try PurchaseRecord(from: &json)
                }
                purchases = read
            default: try json.skipValue()
            }
        }
        guard try JSONReader.required(schema, "schema") == Self.schema else {
            throw JSONReader.Failure(offset: -1, detail: "schema is not \(Self.schema)")
        }
        self.init(
            bundleId: try JSONReader.required(bundleId, "bundleId"), userId: try JSONReader.required(userId, "userId"),
            purchases: try JSONReader.required(purchases, "purchases"))
    }
}

extension PurchaseRecord: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("action", self.action)
        json.field("autoRenewStatus", self.autoRenewStatus)
        json.field("environment", self.environment)
        json.field("eventId", self.eventId)
        json.field("expiresDate", self.expiresDate)
        json.field("gracePeriodExpiresDate", self.gracePeriodExpiresDate)
        json.field("orderId", self.orderId)
        json.field("originalTransactionId", self.originalTransactionId)
        json.field("productId", self.productId)
        json.field("productType", self.productType)
        json.field("purchaseDate", self.purchaseDate)
        json.field("quantity", self.quantity)
        json.field("revocationDate", self.revocationDate)
        json.field("sequence", self.sequence)
        json.field("since", self.since)
        json.field("status", self.status)
        json.field("transactionId", self.transactionId)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var originalTransactionId: String?
        var transactionId: String?
        var productId: String?
        var quantity: Int?
        var action: EntitlementAction?
        var status: EntitlementStatus?
        var environment: AppStoreEnvironment?
        var eventId: String?
        var optional = Optionals()
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "originalTransactionId": originalTransactionId = try json.string()
            case "transactionId": transactionId = try json.string()
            case "productId": productId = try json.string()
            case "productType": optional.productType = try json.optionalRaw()
            case "quantity": quantity = try json.int()
            case "action": action = try json.raw()
            case "status": status = try json.raw()
            case "since": optional.since = try json.optionalTimestamp()
            case "purchaseDate": optional.purchaseDate = try json.optionalTimestamp()
            case "expiresDate": optional.expiresDate = try json.optionalTimestamp()
            case "gracePeriodExpiresDate": optional.gracePeriodExpiresDate = try json.optionalTimestamp()
            case "revocationDate": optional.revocationDate = try json.optionalTimestamp()
            case "autoRenewStatus": optional.autoRenewStatus = try json.optionalRaw()
            case "environment": environment = try json.raw()
            case "orderId": optional.orderId = try json.optionalString()
            case "sequence": optional.sequence = try json.optionalInt()
            case "eventId": eventId = try json.string()
            default: try json.skipValue()
            }
        }
        self.init(
            originalTransactionId: try JSONReader.required(originalTransactionId, "originalTransactionId"),
            transactionId: try JSONReader.required(transactionId, "transactionId"),
            productId: try JSONReader.required(productId, "productId"),
            quantity: try JSONReader.required(quantity, "quantity"), action: try JSONReader.required(action, "action"),
            status: try JSONReader.required(status, "status"),
            environment: try JSONReader.required(environment, "environment"),
            eventId: try JSONReader.required(eventId, "eventId"), optional: optional)
    }

    /// The fields a record may lack, read before the record is made.
    struct Optionals {
        var productType: ProductType?
        var since: Timestamp?
        var purchaseDate: Timestamp?
        var expiresDate: Timestamp?
        var gracePeriodExpiresDate: Timestamp?
        var revocationDate: Timestamp?
        var autoRenewStatus: AutoRenewStatus?
        var orderId: String?
        var sequence: Int?
    }

    init(
        originalTransactionId: String, transactionId: String, productId: String, quantity: Int,
        action: EntitlementAction, status: EntitlementStatus, environment: AppStoreEnvironment, eventId: String,
        optional: Optionals
    ) {
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.productId = productId
        self.productType = optional.productType
        self.quantity = quantity
        self.action = action
        self.status = status
        self.since = optional.since
        self.purchaseDate = optional.purchaseDate
        self.expiresDate = optional.expiresDate
        self.gracePeriodExpiresDate = optional.gracePeriodExpiresDate
        self.revocationDate = optional.revocationDate
        self.autoRenewStatus = optional.autoRenewStatus
        self.environment = environment
        self.orderId = optional.orderId
        self.sequence = optional.sequence
        self.eventId = eventId
    }
}
