import Foundation
import Kafka
import Pipeline

/// The sample stage `iap demo` runs: turns `demo.event.v1` into `demo.enriched.v1`.
///
/// It exercises every runtime path a real stage uses: decoding with reason codes, the
/// idempotency guard (duplicates by `eventId`), and delayed retries (`flaky` events ask for one).
struct DemoStage: MessageHandler {
    struct Event: Decodable, Sendable {
        var schema: String
        var eventId: String
        var userId: String
        var amount: Double
        var flaky: Bool?
    }

    static let outputTopic = "demo.enriched"

    func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<Event> {
        let event = try JSONEnvelope.decode(Event.self, from: message.record.value, schemas: ["demo.event.v1"])
        return Prepared(event, idempotencyKey: event.eventId)
    }

    func handle(_ event: Event, message: InboundMessage) async throws -> StageOutcome {
        if event.flaky == true && message.attempt == 0 {
            return .retry(after: .milliseconds(500), reason: "demo: first attempt of a flaky event")
        }
        let output: [String: Any] = [
            "schema": "demo.enriched.v1", "eventId": event.eventId, "userId": event.userId,
            "amountCents": Int((event.amount * 100).rounded()), "attempts": message.attempt + 1,
        ]
        let value = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys])
        return .produce([KafkaRecord(topic: Self.outputTopic, key: Array(event.userId.utf8), value: Array(value))])
    }
}
