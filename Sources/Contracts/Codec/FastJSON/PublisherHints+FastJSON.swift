public import Basics

extension PublisherHints: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("appAccountToken", self.appAccountToken)
        json.field("environment", self.environment)
        json.field("eventId", self.eventId)
        json.field("orderId", self.orderId)
        json.field("userId", self.userId)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        self.init()
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "appAccountToken": self.appAccountToken = try json.optionalString()
            case "environment": self.environment = try json.optionalRaw()
            case "eventId": self.eventId = try json.optionalString()
            case "orderId": self.orderId = try json.optionalString()
            case "userId": self.userId = try json.optionalString()
            default: try json.skipValue()
            }
        }
    }
}
