import Foundation
public import Kafka
public import Topology

/// What the pipeline wrote to its three result topics, parsed just enough to check the
/// demo's expectations.
public struct Outcomes: Sendable {
    public struct Entitlement: Sendable, Hashable {
        public var eventId: String
        public var action: String
        public var userId: String
        public var transactionId: String
        public var orderId: String?
        public var matchedBy: String?
        public var environment: String?
        public var quantity: Int?
        public var warnings: [String]
    }

    public struct Rejected: Sendable, Hashable {
        public var reason: String
        public var stage: String?
        /// The publisher's eventId found anywhere in the embedded event (intake, verify and
        /// match each embed their own input).
        public var eventId: String?
    }

    public struct Unmatched: Sendable, Hashable {
        public var transactionId: String
    }

    public var entitlements: [Entitlement] = []
    public var rejected: [Rejected] = []
    public var unmatched: [Unmatched] = []

    public init(records: [KafkaMessage], topics: ResultTopics) {
        for record in records {
            guard let object = try? JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any] else {
                continue
            }
            switch record.topic {
            case topics.entitlements:
                guard let eventId = object["eventId"] as? String, let action = object["action"] as? String,
                    let userId = object["userId"] as? String, let transactionId = object["transactionId"] as? String
                else { continue }
                entitlements.append(
                    Entitlement(
                        eventId: eventId, action: action, userId: userId, transactionId: transactionId,
                        orderId: object["orderId"] as? String,
                        matchedBy: object["matchedBy"] as? String, environment: object["environment"] as? String,
                        quantity: object["quantity"] as? Int, warnings: object["warnings"] as? [String] ?? []
                    ))
            case topics.rejected:
                rejected.append(
                    Rejected(
                        reason: object["reason"] as? String ?? "", stage: object["stage"] as? String,
                        eventId: Self.firstEventId(in: object["event"])))
            case topics.unmatched:
                if let id = Self.transactionId(in: object) { unmatched.append(Unmatched(transactionId: id)) }
            default:
                continue
            }
        }
    }

    /// Entitlement changes counted once per eventId (a redelivered record carries the same
    /// eventId and is not a second change).
    public var distinctEntitlements: [Entitlement] {
        var seen: Set<String> = []
        return entitlements.filter { seen.insert($0.eventId).inserted }
    }

    private static func firstEventId(in value: Any?) -> String? {
        if let object = value as? [String: Any] {
            if let id = object["eventId"] as? String { return id }
            for key in object.keys.sorted() { if let id = firstEventId(in: object[key]) { return id } }
        }
        return nil
    }

    private static func transactionId(in value: Any?) -> String? {
        guard let object = value as? [String: Any] else { return nil }
        if let transaction = object["transaction"] as? [String: Any], let id = transaction["transactionId"] as? String {
            return id
        }
        for key in object.keys.sorted() { if let id = transactionId(in: object[key]) { return id } }
        return nil
    }
}

/// The topics the demo and the soak read their results from.
public struct ResultTopics: Sendable {
    public var entitlements: String
    public var rejected: String
    public var unmatched: String

    /// The topics `pipeline` names for them (``TopicRole``).
    public init(pipeline: PipelineFile) throws(PipelineFileError) {
        entitlements = try pipeline.topic(.entitlements)
        rejected = try pipeline.topic(.rejected)
        unmatched = try pipeline.topic(.unmatched)
    }

    /// The shipped pipeline file's names, for callers with no file at hand (tests).
    public init() {
        entitlements = TopicRole.entitlements.defaultName
        rejected = TopicRole.rejected.defaultName
        unmatched = TopicRole.unmatched.defaultName
    }

    public var all: [String] { [entitlements, rejected, unmatched] }
}
