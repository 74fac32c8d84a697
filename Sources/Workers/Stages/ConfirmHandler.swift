import AppStore
public import Contracts
import Kafka
public import Logging
public import Pipeline
public import Purchases
public import WorkerCommon

/// The confirm stage (issue 22 item 2, D55): after grant's change is committed on
/// `iap.entitlements`, tells Apple what the pipeline did: Finish Transaction for a granted or
/// renewed transaction, Set App Account Token for a purchase matched by order or user. A stage of
/// its own, so Apple failing or rate-limiting these calls delays only them, never a grant: they
/// wait for the shared gate, retry with the stage's backoff, and a refusal for good is logged
/// and counted, not dead-lettered (nothing an operator replays would change Apple's answer).
/// Each app has its confirmer (its key and gate; D57); a change of an app no longer served is
/// logged and skipped.
public struct ConfirmHandler: MessageHandler {
    private let confirmers: PerApp<AppleConfirmer>
    private let configuration: ConfirmConfiguration
    private let metrics: ConfirmMetrics?
    private let appleMetrics: AppleCallMetrics?
    private let logger: Logger

    public init(
        confirmers: PerApp<AppleConfirmer>, configuration: ConfirmConfiguration, metrics: ConfirmMetrics? = nil,
        appleMetrics: AppleCallMetrics? = nil, logger: Logger
    ) {
        self.confirmers = confirmers
        self.configuration = configuration
        self.metrics = metrics
        self.appleMetrics = appleMetrics
        self.logger = logger
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<EntitlementEvent> {
        let event = try EventDecoder.decode(EntitlementEvent.self, from: message.record.value)
        return Prepared(event, idempotencyKey: event.eventId)
    }

    public func handle(_ event: EntitlementEvent, message: InboundMessage) async throws -> StageOutcome {
        let planned = ConfirmRules.plan(event, configuration: configuration)
        guard !planned.isEmpty else { return .skip(reason: "nothing to tell Apple about this change") }
        guard let confirmer = confirmers[event.bundleId] else {
            let refusal = confirmers.unknownApp(event.bundleId)
            logger.error(
                "not confirming to Apple: \(refusal.detail)",
                metadata: ["transactionId": "\(event.transactionId)", "reason": "\(refusal.reason.rawValue)"])
            return .skip(reason: refusal.description)
        }
        let outcome = try await confirmer.confirm(planned, holding: message.waitMemo.flatMap(GateBooking.init))
        metrics?.record(outcome, planned: planned)
        // Built only for a line that is written: a confirmation is one per purchase.
        func metadata() -> Logger.Metadata {
            ["transactionId": "\(event.transactionId)", "eventId": "\(event.eventId)"]
        }
        switch outcome {
        case .done(let done, let refused):
            // Debug, as every stage's successes are (docs/operations.md, "Tracing"): at info it
            // was a line per purchase, and `iap_apple_confirmations_total` counts them.
            for action in done { logger.debug("confirmed to Apple: \(action)", metadata: metadata()) }
            for refusal in refused {
                logger.error(
                    "Apple refused \(refusal.action): \(refusal.reason)",
                    metadata: metadata().merging(["reason": "\(refusal.reason.code.rawValue)"]) { $1 })
            }
            return .produce([])
        case .retry(let after, let reason):
            appleMetrics?.countIfConfigurationError(reason)
            return .retry(after: after, reason: "confirming to Apple: \(reason)")
        case .wait(let slot):
            return .wait(slot.stageWait(since: message.waitingSince))
        }
    }
}
