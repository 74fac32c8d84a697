public import Contracts
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

    public init(rules: IntakeRules, verifyTopic: String) {
        self.rules = rules
        self.verifyTopic = verifyTopic
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<Work> {
        switch rules.evaluate(message.record.value, receivedAt: message.receivedAt) {
        case .forward(let request, let key, let dedupeKey):
            return Prepared(Work(request: request, key: key), idempotencyKey: dedupeKey)
        case .reject(let rejection):
            throw rejection
        }
    }

    public func handle(_ work: Work, message: InboundMessage) async throws -> StageOutcome {
        .produce([try .event(work.request, topic: verifyTopic, key: work.key)])
    }
}
