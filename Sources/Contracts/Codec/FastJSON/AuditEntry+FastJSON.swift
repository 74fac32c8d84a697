public import AppStoreModels
public import Basics

/// The audit trail is written by every stage for every record and read by the state stage for
/// each: through the hand-written path like the other per-record events (D17), in `Codable`'s
/// sorted key order, nil fields left out.
extension AuditEntry: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("at", self.at)
        json.field("auditId", self.auditId)
        json.field("bundleId", self.bundleId)
        json.field("decision", self.decision)
        json.field("detail", self.detail)
        if let effects { json.field("effects", effects.map(\.rawValue)) }
        json.field("environment", self.environment)
        json.field("eventId", self.eventId)
        json.field("matchedBy", self.matchedBy)
        json.field("notificationUUID", self.notificationUUID)
        json.field("orderId", self.orderId)
        json.field("originalTransactionId", self.originalTransactionId)
        json.field("reason", self.reason)
        json.field("schema", self.schema)
        json.field("stage", self.stage)
        json.field("transactionId", self.transactionId)
        if let transactions { json.field("transactions", transactions) }
        json.field("userId", self.userId)
        if let warnings { json.field("warnings", warnings.map(\.rawValue)) }
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var schema: String?
        var auditId: String?
        var stage: String?
        var decision: AuditDecision?
        var at: Timestamp?
        var subject = AuditSubject()
        var reason: String?
        var detail: String?
        var transactions: [String]?
        var environment: AppStoreEnvironment?
        var matchedBy: MatchedBy?
        var orderId: String?
        var warnings: [MatchWarning]?
        var effects: [EntitlementAction]?
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "schema": schema = try json.string()
            case "auditId": auditId = try json.string()
            case "stage": stage = try json.string()
            case "decision": decision = try json.raw(AuditDecision.self)
            case "at": at = try json.timestamp()
            case "eventId": subject.eventId = try json.optionalString()
            case "notificationUUID": subject.notificationUUID = try json.optionalString()
            case "bundleId": subject.bundleId = try json.optionalString()
            case "transactionId": subject.transactionId = try json.optionalString()
            case "originalTransactionId": subject.originalTransactionId = try json.optionalString()
            case "userId": subject.userId = try json.optionalString()
            case "reason": reason = try json.optionalString()
            case "detail": detail = try json.optionalString()
            case "transactions": transactions = try json.readNull() ? nil : try json.strings()
            case "environment": environment = try json.optionalRaw(AppStoreEnvironment.self)
            case "matchedBy": matchedBy = try json.optionalRaw(MatchedBy.self)
            case "orderId": orderId = try json.optionalString()
            case "warnings": warnings = try json.readNull() ? nil : try json.strings().map(MatchWarning.init(rawValue:))
            case "effects":
                effects = try json.readNull() ? nil : try json.strings().map(EntitlementAction.init(rawValue:))
            default: try json.skipValue()
            }
        }
        guard try JSONReader.required(schema, "schema") == Self.schema else {
            throw JSONReader.Failure(offset: -1, detail: "schema")
        }
        self.init(
            auditId: try JSONReader.required(auditId, "auditId"), stage: try JSONReader.required(stage, "stage"),
            decision: try JSONReader.required(decision, "decision"), at: try JSONReader.required(at, "at"),
            subject: subject, userId: nil, reason: reason, detail: detail)
        self.transactions = transactions
        self.environment = environment
        self.matchedBy = matchedBy
        self.orderId = orderId
        self.warnings = warnings
        self.effects = effects
    }
}
