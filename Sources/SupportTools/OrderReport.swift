public import AppStoreModels
public import Contracts
public import Kafka
public import Purchases

/// `iap support order`: Look Up Order ID's transactions, each checked and shown with what grant
/// holds for its purchase, and, with `--republish`, the purchase events fed back to intake.
public struct OrderReport: Encodable, Sendable {
    public struct Transaction: Encodable, Sendable {
        public var verification: Verification
        public var transaction: JWSTransactionDecodedPayload?
        /// Grant's state of the transaction's purchase (originalTransactionId).
        public var grant: GrantView?
    }

    /// One `iap.purchase.v1` event published by `--republish`.
    public struct Republished: Encodable, Sendable {
        public var eventId: String
        public var transactionId: String
        public var userId: String
        public var topic: String
        public var partition: Int32
        public var offset: Int64
    }

    public var orderId: String
    /// Apple's `status` 0 with transactions; false for an order Apple does not know.
    public var found: Bool
    public var environment: AppStoreEnvironment
    public var transactions: [Transaction]
    /// Present with `--republish`.
    public var republished: [Republished]?

    /// Looks the order up and reads grant's state of each of its purchases.
    public static func make(
        orderId: String, lookups: AppleCustomerLookups, grants: any EntitlementStateStore
    ) async throws -> OrderReport {
        let answer = try await lookups.order(orderId)
        let purchases = answer.transactions.compactMap { $0.transaction?.originalTransactionId }
        let views = try await GrantView.lookUp(purchases, in: grants)
        return OrderReport(
            orderId: orderId, found: answer.found, environment: answer.environment,
            transactions: answer.transactions.map { checked in
                Transaction(
                    verification: checked.verification, transaction: checked.transaction,
                    grant: checked.transaction?.originalTransactionId.flatMap { views[$0] })
            },
            republished: nil)
    }
}

/// Feeds an order's verified transactions back to intake as `iap.purchase.v1` events with
/// `source: "reconcile"`, for purchases whose events and notifications were lost.
///
/// The payload is the bare transaction id (verify looks it up with Apple, the source of truth),
/// the user is grant's owner of the purchase or the operator's `--user-id`, and the eventId is
/// derived from (order, transaction) (``BusinessKeys/republishedPurchaseEventId(orderId:transactionId:)``):
/// run twice, intake drops the second copy by its dedupe key, and grant's state would refuse a
/// second grant anyway.
public struct OrderRepublisher: Sendable {
    public var purchasesTopic: String
    public var bundleId: String

    public init(purchasesTopic: String, bundleId: String) {
        self.purchasesTopic = purchasesTopic
        self.bundleId = bundleId
    }

    /// The events for the verified transactions of `report`; refused ones are never republished.
    /// - Parameter userId: for purchases grant never saw; required when there is one.
    public func events(for report: OrderReport, userId: String?) throws(SupportError) -> [PurchaseEvent] {
        var events: [PurchaseEvent] = []
        for item in report.transactions where item.verification.status == .verified {
            guard let transaction = item.transaction, let transactionId = transaction.transactionId else { continue }
            guard let owner = item.grant?.userId ?? userId else {
                throw SupportError(
                    .userIdRequired,
                    "grant never saw purchase \(transaction.originalTransactionId ?? transactionId); pass --user-id")
            }
            events.append(
                PurchaseEvent(
                    eventId: BusinessKeys.republishedPurchaseEventId(
                        orderId: report.orderId, transactionId: transactionId),
                    bundleId: bundleId, userId: owner, payload: .transactionId(transactionId),
                    environment: transaction.environment, source: .reconcile))
        }
        return events
    }

    /// Publishes `events` (key: userId, as backends do) and says where each landed.
    public func publish(_ events: [PurchaseEvent], with producer: KafkaProducer) async throws
        -> [OrderReport.Republished]
    {
        var records: [KafkaRecord] = []
        for event in events {
            records.append(
                KafkaRecord(
                    topic: purchasesTopic, key: Array(event.userId.utf8), value: try EventEncoder.encode(event)))
        }
        let reports = try await producer.send(records)
        return zip(events, reports).map { event, delivery in
            OrderReport.Republished(
                eventId: event.eventId, transactionId: event.payload.value, userId: event.userId,
                topic: purchasesTopic, partition: delivery.partition, offset: delivery.offset)
        }
    }
}
