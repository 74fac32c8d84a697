public import Contracts
import Foundation
import Kafka
public import Pipeline
public import Purchases

/// The intake stage: validates and normalises purchases and notifications, drops exact
/// duplicates (the runtime's guard on the dedupe key) and routes each to `iap.verify` under
/// its purchase's routing key. Never calls Apple.
public struct IntakeHandler: MessageHandler {
    public struct Work: Sendable {
        var request: VerifyRequest
        var key: String
    }

    private let rules: IntakeRules
    private let verifyTopic: String
    private let audit: AuditTrail?

    public init(rules: IntakeRules, verifyTopic: String, audit: AuditTrail? = nil) {
        self.rules = rules
        self.verifyTopic = verifyTopic
        self.audit = audit
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<Work> {
        switch rules.evaluate(message.record.value, receivedAt: message.receivedAt) {
        case .forward(let request, let key, let dedupeKey):
            return Prepared(Work(request: request, key: key), idempotencyKey: dedupeKey, audit: request.auditSubject)
        case .reject(let rejection):
            throw rejection
        }
    }

    public func handle(_ work: Work, message: InboundMessage) async throws -> StageOutcome {
        var records = [try KafkaRecord.event(work.request, topic: verifyTopic, key: work.key)]
        if let audit {
            records.append(try audit.record(audit.entry(.accepted, about: work.request.auditSubject)))
        }
        return .produce(records)
    }

    /// The `eventId`, `bundleId` and `userId` of a refused event when it is a JSON object that
    /// has them as strings: its rejection is then the publisher's answer (D51).
    public func auditSubject(ofRefused message: InboundMessage) -> AuditSubject? {
        guard message.record.value.count <= 64 * 1024,
            let object = try? JSONSerialization.jsonObject(with: Data(message.record.value)) as? [String: Any],
            let eventId = object["eventId"] as? String, !eventId.isEmpty
        else { return nil }
        return AuditSubject(
            eventId: eventId, bundleId: object["bundleId"] as? String, userId: object["userId"] as? String)
    }
}
