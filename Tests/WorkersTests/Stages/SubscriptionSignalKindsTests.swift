import AppStoreModels
import Contracts
import Foundation
import Kafka
import Pipeline
import Purchases
import Redis
import TestSupport
import Testing
import Topology

@testable import Workers

/// Churn signals on their topic once per notification, a test per kind (issue 22 item 4, D56):
/// grant writes one `iap.subscription-event.v1` for each of the seven types, with the same
/// eventId for Apple's retry of the notification; and the stage as `iap-grant` runs it, given
/// every kind twice, writes each once.
@Suite(.timeLimit(.minutes(2))) struct SubscriptionSignalKindsTests {
    /// Each kind with a subtype Apple sends with it.
    static let kinds: [(NotificationTypeV2, NotificationSubtype?)] = [
        (.didChangeRenewalStatus, .autoRenewDisabled), (.didChangeRenewalPref, .downgrade),
        (.didFailToRenew, .gracePeriod), (.priceIncrease, .accepted), (.consumptionRequest, nil),
        (.refundDeclined, nil), (.offerRedeemed, .resubscribe),
    ]

    static func matched(_ type: NotificationTypeV2, _ subtype: NotificationSubtype?, index: Int) -> MatchedTransaction {
        let transaction = TransactionDetails(
            transactionId: "\(7_000 + index)", originalTransactionId: "\(6_000 + index)", bundleId: "com.example.game",
            productId: "vip_monthly", productType: .autoRenewableSubscription, environment: .production,
            purchaseDate: Timestamp(millisecondsSince1970: 1_763_000_000_000),
            expiresDate: Timestamp(millisecondsSince1970: 4_000_000_000_000))
        var verified = VerifiedTransaction(
            transaction: transaction, hints: PublisherHints(eventId: "e-\(index)"), source: .notification,
            receivedAt: Timestamp(millisecondsSince1970: 1), verifiedAt: Timestamp(millisecondsSince1970: 2))
        verified.notification = NotificationContext(
            notificationType: type, subtype: subtype, notificationUUID: "n-\(type.rawValue)")
        verified.renewal = RenewalDetails(autoRenewStatus: .on)
        return MatchedTransaction(verified: verified, userId: "u-\(index)", orderId: nil, matchedBy: .ownership)
    }

    static let message = InboundMessage(
        record: KafkaMessage(topic: "iap.matched", partition: 0, offset: 0, key: nil, value: []), attempt: 0)

    static func signals(_ outcome: StageOutcome) -> [KafkaRecord] {
        switch outcome {
        case .produce(let records), .deliver(let records, _, _): records.filter { $0.topic == "signals" }
        default: []
        }
    }

    @Test(arguments: 0..<7)
    func eachKindIsOneSignalWithTheSameIdOnApplesRetry(_ index: Int) async throws {
        let (type, subtype) = Self.kinds[index]
        let kind = (offset: index, element: Self.kinds[index])
        let handler = GrantHandler(
            rules: GrantRules(store: InMemoryEntitlementStateStore()), entitlementsTopic: "ents", stateTopic: "states",
            subscriptionEventsTopic: "signals")
        let matched = Self.matched(type, subtype, index: kind.offset)
        let first = Self.signals(try await handler.handle(matched, message: Self.message))
        let retry = Self.signals(try await handler.handle(matched, message: Self.message))
        #expect(first.count == 1, "\(type.rawValue)")
        let event = try EventDecoder.decode(SubscriptionEvent.self, from: try #require(first.first).value)
        #expect(event.notificationType == type && event.subtype == subtype)
        #expect(event.userId == "u-\(kind.offset)" && event.originalTransactionId == "\(6_000 + kind.offset)")
        #expect(first.first?.key == Array("u-\(kind.offset)".utf8), "keyed by user")
        let again = try retry.map { try EventDecoder.decode(SubscriptionEvent.self, from: $0.value).eventId }
        #expect(again.allSatisfy { $0 == event.eventId }, "Apple's retry names the same event")
    }

    /// As `iap-grant` runs it: every kind delivered twice (Apple's retry), each written once.
    @Test func theStageWritesEachKindOnceWhateverTheRepeats() async throws {
        try await withStage(.grant, environment: [:]) { stage in
            let input = try stage.spec.input("matched")
            var records: [KafkaRecord] = []
            for (index, kind) in Self.kinds.enumerated() {
                let matched = Self.matched(kind.0, kind.1, index: index)
                let value = try EventEncoder.encode(matched)
                let key = Array(matched.userId.utf8)
                records.append(KafkaRecord(topic: input, key: key, value: value))
                records.append(KafkaRecord(topic: input, key: key, value: value))
            }
            _ = try await stage.producer.send(records)
            let topic = try #require(stage.spec.outputRoles["subscriptionEvents"])
            let probe = try stage.probe(topic)
            _ = try await probe.waitForMessages(Self.kinds.count, timeout: .seconds(60))
            try await Task.sleep(for: .seconds(2))
            let types = try probe.messages.map {
                try EventDecoder.decode(SubscriptionEvent.self, from: $0.value).notificationType
            }
            #expect(types.count == Self.kinds.count, "each notification once: \(types.map(\.rawValue))")
            #expect(Set(types) == Set(Self.kinds.map(\.0)))
            await probe.close()
        }
    }
}
