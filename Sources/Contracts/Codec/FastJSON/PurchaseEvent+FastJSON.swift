import AppStoreModels
public import Basics

/// Read only: backends publish purchases and intake reads every one of them.
extension PurchaseEvent: FastJSONReadable {
    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var schema: String?
        var eventId: String?
        var bundleId: String?
        var userId: String?
        var orderId: String?
        var appAccountToken: String?
        var environment: AppStoreEnvironment?
        var source: PurchaseSource?
        var signedRenewalInfo: String?
        var payloads: [PurchasePayload] = []
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "schema": schema = try json.string()
            case "eventId": eventId = try json.string()
            case "bundleId": bundleId = try json.string()
            case "userId": userId = try json.string()
            case "orderId": orderId = try json.optionalString()
            case "appAccountToken": appAccountToken = try json.optionalString()
            case "environment": environment = try json.optionalRaw()
            case "source": source = try json.optionalRaw()
            case "signedRenewalInfo": signedRenewalInfo = try json.optionalString()
            case "signedTransaction":
                if let value = try json.optionalString() { payloads.append(.signedTransaction(value)) }
            case "appReceipt": if let value = try json.optionalString() { payloads.append(.appReceipt(value)) }
            case "transactionReceipt":
                if let value = try json.optionalString() { payloads.append(.transactionReceipt(value)) }
            case "transactionId": if let value = try json.optionalString() { payloads.append(.transactionId(value)) }
            case "appTransaction":
                if let value = try json.optionalString() { payloads.append(.appTransaction(value)) }
            default: try json.skipValue()
            }
        }
        // Anything but exactly one payload is refused, in JSONDecoder's words, by the fallback.
        guard try JSONReader.required(schema, "schema") == Self.schema, payloads.count == 1 else {
            throw JSONReader.Failure(offset: -1, detail: "schema or payload")
        }
        self.init(
            eventId: try JSONReader.required(eventId, "eventId"),
            bundleId: try JSONReader.required(bundleId, "bundleId"),
            userId: try JSONReader.required(userId, "userId"),
            payload: payloads[0],
            orderId: orderId,
            appAccountToken: appAccountToken,
            environment: environment,
            source: source,
            signedRenewalInfo: signedRenewalInfo
        )
    }
}
