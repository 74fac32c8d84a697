import AppStoreModels
import Contracts
import Foundation
import Purchases
import Testing

/// One purchase arrives three ways (the app's StoreKit 2 upload, a StoreKit 1 receipt from an
/// older client path, and Apple's notification), in every order. Apple is asked at most once
/// and exactly one grant comes out of the pipeline's rules.
@Suite(.timeLimit(.minutes(2))) struct DoubleDeliveryTests {
    enum Delivery: String, CaseIterable, Sendable {
        case storeKit2, storeKit1, notification
    }

    static let orders: [[Delivery]] = [
        [.storeKit2, .storeKit1, .notification], [.storeKit2, .notification, .storeKit1],
        [.storeKit1, .storeKit2, .notification], [.storeKit1, .notification, .storeKit2],
        [.notification, .storeKit2, .storeKit1], [.notification, .storeKit1, .storeKit2],
    ]

    static let token = "5a1d0c6e-0000-4000-8000-0000000000aa"
    static let transactionId = "2000000000000042"
    static let now = Timestamp(millisecondsSince1970: 1_763_000_500_000)

    /// A StoreKit 1 `transactionReceipt` naming the purchase (the outer plist's signature is
    /// never checked: verify asks Apple about the id inside).
    static func transactionReceipt() -> String {
        let purchaseInfo = """
            {
            \t"transaction-id" = "\(Self.transactionId)";
            \t"original-transaction-id" = "\(Self.transactionId)";
            \t"product-id" = "gems_100";
            \t"bid" = "\(TestApple.bundleId)";
            \t"quantity" = "1";
            }
            """
        let outer = """
            {
            \t"signature" = "AA==";
            \t"purchase-info" = "\(Data(purchaseInfo.utf8).base64EncodedString())";
            \t"pod" = "100";
            \t"signing-status" = "0";
            }
            """
        return Data(outer.utf8).base64EncodedString()
    }

    @Test(arguments: Self.orders)
    func onePurchaseThreeWaysGrantsOnce(order: [Delivery]) async throws {
        let apple = try TestApple()
        func spec(signedAt: Int64) -> TransactionSpec {
            TransactionSpec(
                transactionId: Self.transactionId, environment: "Production", appAccountToken: Self.token,
                signedDate: signedAt)
        }
        let deviceJWS = try apple.sign(spec(signedAt: 1_763_000_001_000))
        let appleAnswer = try apple.sign(spec(signedAt: 1_763_000_300_000))
        let notification = try apple.notification(
            "ONE_TIME_CHARGE", uuid: "n-once", transaction: spec(signedAt: 1_763_000_002_000), environment: "Production"
        )
        let source = FakeAppleSource { call in
            call.subject == Self.transactionId && call.environment == .production
                ? .signed(appleAnswer) : FakeAppleSource.apiError(404, 4_040_010)
        }

        let intake = IntakeRules()
        let verifier = try TransactionVerifier(
            configuration: try apple.configuration(), source: source,
            cache: InMemoryVerifiedTransactionCache(), gate: ScriptedGate()
        )
        let match = MatchRules(
            orders: InMemoryOrderIndex(), ownership: InMemoryOwnershipStore(),
            waiting: InMemoryWaitingTransactionStore())
        let grant = GrantRules(store: InMemoryEntitlementStateStore())
        guard
            case .indexed = try await match.acceptOrder(
                OrderEvent(
                    orderId: "o-1", userId: "u-1", productId: "gems_100", bundleId: TestApple.bundleId,
                    appAccountToken: Self.token
                ))
        else {
            Issue.record("order refused")
            return
        }

        var keys: Set<String> = []
        var entitlements: [EntitlementEvent] = []
        for delivery in order {
            let bytes: [UInt8]
            switch delivery {
            case .storeKit2:
                bytes = try EventEncoder.encode(
                    PurchaseEvent(
                        eventId: "e-sk2", bundleId: TestApple.bundleId, userId: "u-1",
                        payload: .signedTransaction(deviceJWS)))
            case .storeKit1:
                let receipt = PurchasePayload.transactionReceipt(Self.transactionReceipt())
                bytes = try EventEncoder.encode(
                    PurchaseEvent(eventId: "e-sk1", bundleId: TestApple.bundleId, userId: "u-1", payload: receipt))
            case .notification:
                bytes = try EventEncoder.encode(NotificationEvent(receivedAt: Self.now, signedPayload: notification))
            }
            guard case .forward(let request, let key, _) = intake.evaluate(bytes, receivedAt: Self.now) else {
                Issue.record("intake refused \(delivery)")
                return
            }
            keys.insert(key)
            let verified = try await verifier.verify(request)
            #expect(verified.records.count == 1, "\(delivery): \(verified)")
            for record in verified.records {
                guard case .matched(let matched) = try await match.match(record, now: Self.now) else {
                    Issue.record("\(delivery) did not match")
                    continue
                }
                #expect(matched.userId == "u-1")
                #expect(matched.orderId == "o-1")
                #expect(matched.matchedBy == .appAccountToken)
                let decision = try await grant.decide(matched)
                try await grant.commit(decision)
                entitlements += decision.events
            }
        }

        // All three deliveries share one verify lane, so the cache sees them in order.
        #expect(keys == [Self.transactionId])
        #expect(source.calls.count <= 1)
        #expect(source.calls.count == (order.first == .storeKit1 ? 1 : 0))
        #expect(entitlements.count == 1)
        let grantEvent = try #require(entitlements.first)
        #expect(grantEvent.action == .grant)
        #expect(grantEvent.transactionId == Self.transactionId)
        #expect(grantEvent.userId == "u-1")
        #expect(grantEvent.orderId == "o-1")
        #expect(
            grantEvent.source.rawValue
                == order.first.map { $0 == .storeKit2 ? "storekit2" : $0 == .storeKit1 ? "storekit1" : "notification" })
    }
}
