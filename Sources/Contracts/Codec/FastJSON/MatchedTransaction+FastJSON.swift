public import Basics

extension MatchedTransaction: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("matchedBy", self.matchedBy)
        json.field("orderId", self.orderId)
        json.field("schema", self.schema)
        json.field("userId", self.userId)
        json.field("verified", self.verified)
        json.warnings(self.warnings)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var schema: String?
        var verified: VerifiedTransaction?
        var userId: String?
        var orderId: String?
        var matchedBy: MatchedBy?
        var warnings: [MatchWarning]?
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "schema": schema = try json.string()
            case "verified": verified = try VerifiedTransaction(from: &json)
            case "userId": userId = try json.string()
            case "orderId": orderId = try json.optionalString()
            case "matchedBy": matchedBy = try json.raw(MatchedBy.self)
            case "warnings": warnings = try json.strings().map(MatchWarning.init(rawValue:))
            default: try json.skipValue()
            }
        }
        guard try JSONReader.required(schema, "schema") == Self.schema else {
            throw JSONReader.Failure(offset: -1, detail: "schema")
        }
        self.init(
            verified: try JSONReader.required(verified, "verified"),
            userId: try JSONReader.required(userId, "userId"),
            orderId: orderId,
            matchedBy: try JSONReader.required(matchedBy, "matchedBy"),
            warnings: try JSONReader.required(warnings, "warnings")
        )
    }
}

extension JSONWriter {
    /// `"warnings":[…]`, always present (an empty array when there are none).
    mutating func warnings(_ warnings: [MatchWarning]) {
        self.field("warnings", warnings.map(\.rawValue))
    }
}
