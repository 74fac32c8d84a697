import AppStore
import AppStoreModels
import Contracts
public import Logging
import Pipeline
public import Purchases
public import WorkerCommon

/// Grant's answer to a `CONSUMPTION_REQUEST`, run before the grant rules decide (decision D34).
///
/// Only a transient failure holds the record back (a retry of the whole record: the grant
/// rules have not run yet, and the ledger keeps an answer Apple accepted from going out twice),
/// or the wait for a slot of Apple's budget (a runtime wait, not an attempt).
/// A skip or Apple's final refusal is logged and counted, and grant goes on. Each app has its
/// answerer (its key and gate; D57).
public struct ConsumptionStep: Sendable {
    private let answerers: PerApp<ConsumptionAnswerer>
    private let metrics: ConsumptionMetrics?
    private let appleMetrics: AppleCallMetrics?
    private let logger: Logger

    public init(
        answerers: PerApp<ConsumptionAnswerer>, metrics: ConsumptionMetrics? = nil,
        appleMetrics: AppleCallMetrics? = nil, logger: Logger
    ) {
        self.answerers = answerers
        self.metrics = metrics
        self.appleMetrics = appleMetrics
        self.logger = logger
    }

    /// A retry or wait outcome for the record, or nil to go on with grant.
    func run(_ matched: MatchedTransaction, message: InboundMessage) async throws -> StageOutcome? {
        let booking = message.waitMemo.flatMap(GateBooking.init)
        guard let answerer = answerers[matched.transaction.bundleId] else {
            if matched.verified.notification?.notificationType == .consumptionRequest {
                let refusal = answerers.unknownApp(matched.transaction.bundleId)
                logger.error(
                    "consumption request not answered: \(refusal.detail)",
                    metadata: ["transactionId": "\(matched.transaction.transactionId)"])
            }
            return nil
        }
        guard let outcome = try await answerer.answer(matched, holding: booking) else { return nil }
        metrics?.record(outcome)
        let metadata: Logger.Metadata = [
            "transactionId": "\(matched.transaction.transactionId)",
            "notificationUUID": "\(matched.verified.notification?.notificationUUID ?? "")",
        ]
        switch outcome {
        case .answered(let request):
            logger.info(
                "consumption request answered",
                metadata: metadata.merging(
                    [
                        "deliveryStatus": "\(request.deliveryStatus)",
                        "consumptionPercentage": "\(request.consumptionPercentage.map(String.init) ?? "-")",
                        "refundPreference": "\(request.refundPreference?.rawValue ?? "-")",
                    ], uniquingKeysWith: { $1 }))
            return nil
        case .skipped(let reason):
            logger.notice("consumption request not answered: \(reason)", metadata: metadata)
            return nil
        case .failed(let reason):
            logger.error("Apple refused the consumption answer: \(reason)", metadata: metadata)
            return nil
        case .retry(let after, let reason):
            appleMetrics?.countIfConfigurationError(reason)
            return .retry(after: after, reason: "consumption answer: \(reason)")
        case .wait(let slot):
            return .wait(slot.stageWait(since: message.waitingSince))
        }
    }
}
