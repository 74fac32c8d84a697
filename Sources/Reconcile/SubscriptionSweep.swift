import AppStore
import AppStoreModels
import Contracts
import Kafka
import Logging
import Purchases
import WorkerCommon

/// Asks Apple about subscriptions grant holds active past their expiry (no renewal and no
/// expiry reached the pipeline), plus a sample of the others, with Get All Subscription
/// Statuses, and publishes what Apple says as an `iap.purchase.v1` event with `source:
/// reconcile`: the subscription's latest `signedTransactionInfo` and its `signedRenewalInfo`,
/// for the user grant's state names (decision D32). The pipeline then applies it like any
/// purchase: a renewal renews, a revocation revokes, a period that ended expires; a view grant
/// already applied changes nothing.
struct SubscriptionSweep: Sendable {
    /// One client per app and environment, asked in order until one knows the subscription
    /// (grant's state does not record which app or environment a purchase is from).
    let clients: [(scope: ReconcileScope, client: AppStoreServerAPIClient)]
    let apple: ReconcileApple
    let index: any SubscriptionExpiryIndex
    let states: any EntitlementStateStore
    let publisher: any ReconcilePublisher
    let topic: String
    /// Subscriptions past their expiry asked about per run, at most.
    let dueLimit: Int
    /// Other active subscriptions asked about per run (0: none).
    let sampleSize: Int
    let now: @Sendable () -> Timestamp
    let logger: Logger

    /// - Parameter keepLease: called after each subscription; extends the sweep's lease and
    ///   throws when another replica took it over.
    func run(
        into report: inout ReconcileReport, progress: @Sendable (ReconcileProgress) -> Void,
        keepLease: () async throws -> Void
    ) async throws {
        let started = now()
        let due = try await index.due(before: started.millisecondsSince1970, limit: dueLimit)
        var seen = Set<String>()
        let candidates = (due + (try await index.sample(sampleSize))).filter { seen.insert($0).inserted }
        for originalTransactionId in candidates {
            try await keepLease()
            guard let state = try await states.state(originalTransactionId: originalTransactionId),
                state.status.hasAccess, state.productType == .autoRenewableSubscription
            else {
                // Grant changed it meanwhile (its save takes it out of the index itself).
                continue
            }
            report.subscriptionsSwept += 1
            guard let (scope, item) = try await latest(originalTransactionId),
                let signedTransaction = item.signedTransactionInfo
            else {
                report.subscriptionsNotFound += 1
                progress(.subscription(published: false))
                logger.warning(
                    "no app or environment knows a subscription grant holds active",
                    metadata: ["originalTransactionId": "\(originalTransactionId)"])
                continue
            }
            let event = PurchaseEvent(
                eventId: "reconcile:\(originalTransactionId):\(started.millisecondsSince1970)",
                bundleId: scope.bundleId, userId: state.userId, payload: .signedTransaction(signedTransaction),
                orderId: state.orderId, environment: scope.environment, source: .reconcile,
                signedRenewalInfo: item.signedRenewalInfo
            )
            try await publisher.publish([
                KafkaRecord(topic: topic, key: Array(state.userId.utf8), value: try EventEncoder.encode(event))
            ])
            report.subscriptionsPublished += 1
            progress(.subscription(published: true))
        }
    }

    /// The subscription's entry in Get All Subscription Statuses of the first app and
    /// environment that knows it.
    private func latest(_ originalTransactionId: String) async throws -> (ReconcileScope, LastTransactionsItem)? {
        for (scope, client) in clients {
            let response: StatusResponse
            do {
                response = try await apple.call(
                    .subscriptionStatuses, environment: scope.environment, app: scope.bundleId
                ) {
                    () async throws(AppStoreAPIError) in
                    try await client.getAllSubscriptionStatuses(transactionId: originalTransactionId).value
                }
            } catch let error as AppStoreAPIError {
                switch error.outcome {
                case .terminal, .switchEnvironment: continue  // not this app or environment
                case .retry, .ok: throw error
                }
            }
            let items = (response.data ?? []).flatMap { $0.lastTransactions ?? [] }
            if let item = items.first(where: { $0.originalTransactionId == originalTransactionId }) {
                return (scope, item)
            }
        }
        return nil
    }
}
