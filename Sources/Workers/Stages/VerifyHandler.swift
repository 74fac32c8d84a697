import AppStore
public import Contracts
import Kafka
public import Pipeline
public import Purchases

/// The verify stage: Apple's word on each request, through ``TransactionVerifier`` (local JWS
/// checks, Apple lookups behind the shared rate limiter and the verified-transaction cache).
/// Retry versus reject follows Apple's classification; a retry never comes before Apple's
/// Retry-After.
public struct VerifyHandler: MessageHandler {
    private let verifier: TransactionVerifier
    private let verifiedTopic: String
    private let appleMetrics: AppleCallMetrics?

    /// - Parameter appleMetrics: counts Apple's refusals of our configuration (D8's alert).
    public init(verifier: TransactionVerifier, verifiedTopic: String, appleMetrics: AppleCallMetrics? = nil) {
        self.verifier = verifier
        self.verifiedTopic = verifiedTopic
        self.appleMetrics = appleMetrics
    }

    public func prepare(_ message: InboundMessage) throws(Rejection) -> Prepared<VerifyRequest> {
        let request = try EventDecoder.decode(VerifyRequest.self, from: message.record.value)
        return Prepared(request, idempotencyKey: request.idempotencyKey)
    }

    public func handle(_ request: VerifyRequest, message: InboundMessage) async throws -> StageOutcome {
        switch try await verifier.verify(request) {
        case .verified(let transactions):
            return .produce(try transactions.map { try .event($0, topic: verifiedTopic, key: $0.partitionKey) })
        case .retry(let after, let reason):
            appleMetrics?.countIfConfigurationError(reason)
            return .retry(after: after, reason: reason.description)
        case .reject(let rejection):
            return .reject(rejection)
        case .skip(let reason):
            return .skip(reason: reason.description)
        }
    }
}
