import AppStoreModels
import Contracts
import Customers
import Purchases

/// Values of every contract type, by the topic they are written to: ``ContractFixtures``' (every
/// optional set, down to nested values), the same with every optional absent, and one per value
/// of each enumeration the pipeline defines, so that every shape a writer can produce meets the
/// topic's schema. `iap.rejected` is the runtime's (`PipelineTests.RejectRecordSchemaTests`).
enum TopicSchemaSamples {
    static func at(_ milliseconds: Int64) -> Timestamp { Timestamp(millisecondsSince1970: milliseconds) }

    static let bareTransaction = TransactionDetails(
        transactionId: "2000000000000009", originalTransactionId: "2000000000000009", bundleId: "com.example.game",
        productId: "gems_100", productType: nil, environment: .production)

    static let bareVerified = VerifiedTransaction(
        transaction: bareTransaction, hints: PublisherHints(), source: .storeKit1, receivedAt: at(1_763_000_002_000),
        verifiedAt: at(1_763_000_002_345))

    /// A notification context and renewal info with only their required fields.
    static let bareLifecycle: VerifiedTransaction = {
        var verified = bareVerified
        verified.notification = NotificationContext(notificationType: .refund, notificationUUID: "n-2")
        verified.renewal = RenewalDetails()
        return verified
    }()

    static var purchases: [PurchaseEvent] {
        let payloads: [PurchasePayload] = [
            .signedTransaction("h.p.s"), .appReceipt("MIIreceipt"), .transactionReceipt("ewoib2xk"),
            .transactionId("2000000000000002"),
        ]
        let bare = payloads.map {
            PurchaseEvent(eventId: "e-2", bundleId: "com.example.game", userId: "u-1", payload: $0)
        }
        let claims = [PurchaseSource.storeKit2, .storeKit1, .reconcile].map { source in
            PurchaseEvent(
                eventId: "e-3", bundleId: "com.example.game", userId: "u-1", payload: .transactionId("1"),
                environment: .production, source: source)
        }
        return ContractFixtures.purchases + bare + claims
    }

    static let orders = [
        ContractFixtures.order,
        OrderEvent(orderId: "o-1", userId: "u-1", productId: "gems_100", bundleId: "com.example.game"),
    ]

    static var notifications: [NotificationEvent] {
        var received = ContractFixtures.notificationEvent
        received.source = nil
        return [ContractFixtures.notificationEvent, received]
    }

    static func verifyRequests(sources: [PurchaseSource]) -> [VerifyRequest] {
        let kinds = VerifyRequest.Kind.allCases.map { kind in
            VerifyRequest(
                kind: kind, payload: "1", bundleId: nil, hints: PublisherHints(), source: .storeKit2,
                receivedAt: at(1_763_000_002_000))
        }
        let bySource = sources.map { source in
            VerifyRequest(
                kind: .transactionId, payload: "1", bundleId: "com.example.game", hints: ContractFixtures.hints,
                source: source, receivedAt: at(1_763_000_002_000))
        }
        return [ContractFixtures.verifyRequest] + kinds + bySource
    }

    static func verified(sources: [PurchaseSource]) -> [VerifiedTransaction] {
        let bySource = sources.map { source in
            var verified = bareVerified
            verified.source = source
            return verified
        }
        return [ContractFixtures.verified, bareVerified, bareLifecycle] + bySource
    }

    static func matched(rules: [MatchedBy], warnings: [MatchWarning]) -> [MatchedTransaction] {
        let byRule = rules.map { rule in
            MatchedTransaction(verified: bareVerified, userId: "u-1", orderId: nil, matchedBy: rule)
        }
        let byWarning = warnings.map { warning in
            MatchedTransaction(
                verified: bareLifecycle, userId: "u-1", orderId: "o-1", matchedBy: .user, warnings: [warning])
        }
        return [ContractFixtures.matched] + byRule + byWarning
    }

    static func unmatched(reasons: [UnmatchedReason]) -> [UnmatchedTransaction] {
        [ContractFixtures.unmatched]
            + reasons.map { reason in
                UnmatchedTransaction(
                    verified: bareVerified, since: at(1_763_000_002_400), unmatchedAt: at(1_763_086_402_400),
                    reason: reason)
            }
    }

    /// Grant's events carry a real eventId (a version-8 UUID) and always a status (``ChangeBuilder``).
    static func entitlements(
        actions: [EntitlementAction], statuses: [EntitlementStatus], sources: [PurchaseSource], rules: [MatchedBy]
    ) -> [EntitlementEvent] {
        var full = ContractFixtures.entitlement
        full.eventId = BusinessKeys.entitlementEventId(
            effectKey: BusinessKeys.effectKey(transactionId: full.transactionId, effect: .revoke, date: at(1)))
        let bare = EntitlementEvent(
            eventId: BusinessKeys.entitlementEventId(effectKey: "2000000000000009|grant"), action: .grant,
            userId: "u-1", orderId: nil, bundleId: "com.example.game", productId: "gems_100", productType: nil,
            quantity: 1, transactionId: "2000000000000009", originalTransactionId: "2000000000000009",
            environment: .production, purchaseDate: nil, expiresDate: nil, revocationDate: nil, matchedBy: .user,
            warnings: [], source: .storeKit1, status: .active)
        var variants: [EntitlementEvent] = []
        for action in actions { variants.append(bare.with { $0.action = action }) }
        for status in statuses { variants.append(bare.with { $0.status = status }) }
        for source in sources { variants.append(bare.with { $0.source = source }) }
        for rule in rules { variants.append(bare.with { $0.matchedBy = rule }) }
        return [full, bare] + variants
    }

    static let ownership = [OwnershipBinding(originalTransactionId: "2000000000000001", userId: "u-123")]

    /// Each signal grant publishes, one with every field set and one bare, and every match rule.
    static func subscriptionEvents(rules: [MatchedBy]) -> [SubscriptionEvent] {
        let renewal = RenewalDetails(
            autoRenewProductId: "vip_yearly", autoRenewStatus: .off, expirationIntent: .billingError,
            isInBillingRetryPeriod: true, gracePeriodExpiresDate: at(9), offerType: .promotionalOffer,
            offerIdentifier: "WINBACK")
        func event(
            _ type: NotificationTypeV2, _ subtype: NotificationSubtype?, rule: MatchedBy = .ownership,
            renewal: RenewalDetails? = nil
        ) -> SubscriptionEvent {
            SubscriptionEvent(
                eventId: BusinessKeys.subscriptionEventId(
                    notificationUUID: "n-\(type.rawValue)", transactionId: "2000000000000001"),
                notificationType: type, subtype: subtype, notificationUUID: "n-\(type.rawValue)", signedDate: at(5),
                userId: "u-1", bundleId: "com.example.game", productId: "vip_monthly",
                transactionId: "2000000000000001",
                originalTransactionId: "2000000000000001", environment: .production, expiresDate: at(8),
                matchedBy: rule, renewal: renewal)
        }
        var bare = event(.refundDeclined, nil)
        bare.signedDate = nil
        bare.expiresDate = nil
        return [event(.didChangeRenewalStatus, .autoRenewDisabled, renewal: renewal), bare]
            + SubscriptionSignals.types.sorted { $0.rawValue < $1.rawValue }.map { event($0, nil, renewal: renewal) }
            + rules.map { event(.didFailToRenew, .gracePeriod, rule: $0) }
    }

    static func states(statuses: [EntitlementStatus]) -> [EntitlementStateRecord] {
        let bare = EntitlementState(
            originalTransactionId: "2000000000000009", userId: "u-1", orderId: nil, productId: "gems_100",
            productType: nil, transactionId: "2000000000000009", purchaseDate: nil, expiresDate: nil, status: .active,
            signedDate: nil)
        return [EntitlementStateRecord(state: ContractFixtures.state), EntitlementStateRecord(state: bare)]
            + statuses.map { status in
                var state = bare
                state.status = status
                return EntitlementStateRecord(state: state)
            }
    }
}

extension TopicSchemaSamples {
    /// A customer with a purchase of every status, the first carrying every optional field.
    static func customers(statuses: [EntitlementStatus]) -> [CustomerRecord] {
        var full = ContractFixtures.entitlement
        full.gracePeriodExpiresDate = full.expiresDate
        full.revocationDate = full.purchaseDate
        full.autoRenewStatus = .on
        full.orderId = "order-1"
        full.sequence = 2
        var record = CustomerRecord(bundleId: full.bundleId, userId: full.userId)
        _ = record.apply(full)
        for (index, status) in statuses.enumerated() {
            var change = full
            change.eventId = "event-\(index)"
            change.originalTransactionId = "300000000000000\(index)"
            change.status = status
            change.sequence = nil
            change.orderId = nil
            _ = record.apply(change)
        }
        return [record, CustomerRecord(bundleId: full.bundleId, userId: "u-without-purchases")]
    }
}

extension EntitlementEvent {
    fileprivate func with(_ change: (inout Self) -> Void) -> Self {
        var copy = self
        change(&copy)
        return copy
    }
}

extension TopicSchemaSamples {
    /// Every stage's decision: one entry with every optional field set, a bare one (a refused
    /// event that named only its eventId), a notification's, and one per value of each enumeration.
    static func audit(
        decisions: [AuditDecision], actions: [EntitlementAction], rules: [MatchedBy], warnings: [MatchWarning]
    ) -> [AuditEntry] {
        let subject = AuditSubject(
            eventId: "e-1", bundleId: "com.example.game", transactionId: "2000000000000009",
            originalTransactionId: "2000000000000001", userId: "u-1")
        var full = AuditEntry(
            stage: "match", decision: .matched, at: at(1_763_000_002_345), subject: subject, reason: "r",
            detail: "the publisher named u-2; the purchase belongs to u-1 by orderId")
        full.notificationUUID = "n-1"
        full.transactions = ["2000000000000009"]
        full.environment = .production
        full.matchedBy = .orderId
        full.orderId = "o-1"
        full.warnings = [.userHintMismatch]
        full.effects = [.grant]
        let bare = AuditEntry(
            stage: "intake", decision: .rejected, at: at(1_763_000_002_000), subject: AuditSubject(eventId: "e-2"))
        let notification = AuditEntry(
            stage: "intake", decision: .accepted, at: at(1_763_000_002_000),
            subject: AuditSubject(notificationUUID: "n-2", bundleId: "com.example.game"))
        let transaction = AuditEntry(
            stage: "grant", decision: .changed, at: at(1_763_000_002_400),
            subject: AuditSubject(eventId: "e-3", bundleId: "com.example.game", transactionId: "2000000000000009"))
        func variant(_ change: (inout AuditEntry) -> Void) -> AuditEntry {
            var entry = transaction
            change(&entry)
            return entry.identified()
        }
        return [full.identified(), bare, notification]
            + decisions.map { decision in variant { $0.decision = decision } }
            + actions.map { action in variant { $0.effects = [action] } }
            + rules.map { rule in variant { $0.matchedBy = rule } }
            + warnings.map { warning in variant { $0.warnings = [warning] } }
            + [variant { $0.transactions = [] }]
    }
}
