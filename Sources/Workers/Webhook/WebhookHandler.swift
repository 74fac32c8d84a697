public import Contracts
public import Foundation
import Kafka
public import Pipeline
import Purchases

/// Delivers each entitlement change to the backend's HTTP webhook (the optional `webhook`
/// stage, run by `iap-grant --webhook`). A delivery is done when the receiver answers 2xx;
/// anything else is retried with the stage's backoff (at least the receiver's Retry-After) and
/// dead-lettered to `<entitlements topic>.dlq` after the budget. Receivers deduplicate on the
/// `Idempotency-Key` header (the stable `eventId`), because at-least-once delivery can repeat a
/// change after a crash.
public struct WebhookHandler: MessageHandler {
    private let url: String
    private let signer: WebhookSigner
    private let transport: any WebhookTransport
    private let timeout: Duration
    private let now: @Sendable () -> Date

    public init(
        url: String, signer: WebhookSigner, transport: any WebhookTransport = HTTPWebhookTransport(),
        timeout: Duration = .seconds(10),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        self.signer = signer
        self.transport = transport
        self.timeout = timeout
        self.now = now
    }

    public struct Work: Sendable {
        var eventId: String
        var body: [UInt8]
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<Work> {
        let event = try EventDecoder.decode(EntitlementEvent.self, from: message.record.value)
        // The body is the event exactly as published, so receivers see the contract.
        return Prepared(
            Work(eventId: event.eventId, body: Array(message.record.value)),
            idempotencyKey: BusinessKeys.webhookKey(eventId: event.eventId))
    }

    public func handle(_ work: Work, message: InboundMessage) async throws -> StageOutcome {
        let timestamp = Int64(now().timeIntervalSince1970)
        let headers = [
            ("Content-Type", "application/json"), ("Idempotency-Key", work.eventId),
            (WebhookSigner.header, signer.signature(for: work.body, at: timestamp)),
        ]
        let response: (status: Int, headers: [(String, String)])
        do {
            response = try await transport.post(url: url, headers: headers, body: work.body, timeout: timeout)
        } catch {
            return .retry(after: .zero, reason: "webhook unreachable: \(error)")
        }
        switch response.status {
        case 200..<300:
            return .skip(reason: "delivered")
        default:
            let retryAfter =
                response.headers.first { $0.0.lowercased() == "retry-after" }.flatMap { Int($0.1) }.map {
                    Duration.seconds($0)
                } ?? .zero
            return .retry(after: retryAfter, reason: "webhook answered \(response.status)")
        }
    }
}
