public import Basics
public import Contracts

/// Grant's state of one purchase as a Kafka record (`iap.entitlement-state.v1` on the compacted
/// `iap.entitlement-states`, key: originalTransactionId).
///
/// The durable copy of `iap:entitlement:{…}`: grant delivers it with the entitlement events of
/// every decision that changes the state (and alone when the change publishes nothing), before
/// the state is saved in Redis, so a Redis that lost its data gets the state back and a replay
/// is not a first sighting (decision D35). It lives beside ``EntitlementState`` rather than in
/// `Contracts` because the state is the grant rules' own type; `state` is written exactly as
/// Redis holds it.
public struct EntitlementStateRecord: PipelineEvent, Hashable {
    public static let schema = "iap.entitlement-state.v1"

    public private(set) var schema: String = Self.schema
    public var state: EntitlementState

    public init(state: EntitlementState) {
        self.state = state
    }

    public var partitionKey: String { self.state.originalTransactionId }
}

extension EntitlementStateRecord: FastJSONCodable {
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("schema", self.schema)
        json.field("state", self.state)
        json.endObject()
    }

    public init(from json: inout JSONReader) throws(JSONReader.Failure) {
        var schema: String?
        var state: EntitlementState?
        try json.beginObject()
        while let key = try json.nextKey() {
            switch key {
            case "schema": schema = try json.string()
            case "state": state = try EntitlementState(from: &json)
            default: try json.skipValue()
            }
        }
        guard try JSONReader.required(schema, "schema") == Self.schema else {
            throw JSONReader.Failure(offset: -1, detail: "schema")
        }
        self.init(state: try JSONReader.required(state, "state"))
    }
}
