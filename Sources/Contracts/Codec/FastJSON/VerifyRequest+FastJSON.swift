import AppStoreModels
public import Basics

extension VerifyRequest: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("bundleId", self.bundleId)
        json.field("hints", self.hints)
        json.field("kind", self.kind)
        json.field("notificationUUID", self.notificationUUID)
        json.field("payload", self.payload)
        json.field("receivedAt", self.receivedAt)
        json.field("schema", self.schema)
        json.field("signedRenewalInfo", self.signedRenewalInfo)
        json.field("source", self.source)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var schema: String?
        var kind: Kind?
        var payload: String?
        var bundleId: String?
        var hints: PublisherHints?
        var source: PurchaseSource?
        var receivedAt: Timestamp?
        var notificationUUID: String?
        var signedRenewalInfo: String?
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "schema": schema = try json.string()
            case "kind": kind = try json.raw(Kind.self)
            case "payload": payload = try json.string()
            case "bundleId": bundleId = try json.optionalString()
            case "hints": hints = try PublisherHints(from: &json)
            case "source": source = try json.raw(PurchaseSource.self)
            case "receivedAt": receivedAt = try json.timestamp()
            case "notificationUUID": notificationUUID = try json.optionalString()
            case "signedRenewalInfo": signedRenewalInfo = try json.optionalString()
            default: try json.skipValue()
            }
        }
        guard try JSONReader.required(schema, "schema") == Self.schema else {
            throw JSONReader.Failure(offset: -1, detail: "schema")
        }
        self.init(
            kind: try JSONReader.required(kind, "kind"),
            payload: try JSONReader.required(payload, "payload"),
            bundleId: bundleId,
            hints: try JSONReader.required(hints, "hints"),
            source: try JSONReader.required(source, "source"),
            receivedAt: try JSONReader.required(receivedAt, "receivedAt"),
            notificationUUID: notificationUUID,
            signedRenewalInfo: signedRenewalInfo
        )
    }
}
