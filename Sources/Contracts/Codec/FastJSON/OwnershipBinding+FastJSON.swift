public import Basics

/// Match writes one with every matched purchase; `JSONEncoder` was 2.4 % of match. Read back
/// only by a rebuild, through `Codable`.
extension OwnershipBinding: FastJSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("originalTransactionId", self.originalTransactionId)
        json.field("schema", self.schema)
        json.field("userId", self.userId)
        json.endObject()
    }
}
