import AppStoreModels
import Contracts
import Foundation
import Purchases
import TestSupport
import Testing

/// What reconcile publishes, through intake, verify and grant (decision D32).
@Suite(.timeLimit(.minutes(2))) struct ReconcileInputTests {
    let apple: TestApple

    init() throws {
        self.apple = try TestApple()
    }

    func verifier() throws -> TransactionVerifier {
        try TransactionVerifier(
            configuration: try self.apple.configuration(), source: FakeAppleSource.unused,
            cache: InMemoryVerifiedTransactionCache(), gate: ScriptedGate(),
            now: { Timestamp(millisecondsSince1970: 1_763_000_200_000) })
    }

    static func forwarded(_ decision: IntakeDecision) throws -> VerifyRequest {
        guard case .forward(let request, _, _) = decision else {
            Issue.record("intake refused: \(decision)")
            throw CancellationError()
        }
        return request
    }

    var subscription: TransactionSpec {
        TransactionSpec(
            transactionId: "2000000000000002", originalTransactionId: "2000000000000001", productId: "pro_monthly",
            type: "Auto-Renewable Subscription", expiresDate: 1_765_000_000_000)
    }

    func renewalInfo(of originalTransactionId: String = "2000000000000001", signer: TestApple? = nil) throws -> String {
        try (signer ?? self.apple).chain.sign([
            "originalTransactionId": originalTransactionId, "productId": "pro_monthly",
            "autoRenewProductId": "pro_yearly", "autoRenewStatus": 1, "environment": "Sandbox",
            "signedDate": 1_763_000_001_000,
        ])
    }

    @Test func aReconcileNotificationKeepsItsSourceAndAGatewayOneIsANotification() throws {
        let signed = try self.apple.notification("DID_RENEW", transaction: self.subscription)
        let received = Timestamp(millisecondsSince1970: 1_763_000_100_000)
        let recovered = try Self.forwarded(
            IntakeRules().notification(
                NotificationEvent(receivedAt: received, signedPayload: signed, source: .reconcile)))
        #expect(recovered.source == .reconcile)
        let delivered = try Self.forwarded(
            IntakeRules().notification(NotificationEvent(receivedAt: received, signedPayload: signed)))
        #expect(delivered.source == .notification)
        // Either way verify's guard is the notificationUUID: a notification that arrived is a no-op.
        #expect(recovered.idempotencyKey == delivered.idempotencyKey)
        // A source no notification may claim is read as a plain notification.
        let claimed = try Self.forwarded(
            IntakeRules().notification(
                NotificationEvent(receivedAt: received, signedPayload: signed, source: .storeKit2)))
        #expect(claimed.source == .notification)
    }

    @Test func verifyCarriesTheRenewalInfoOfAReconcilePurchase() async throws {
        let event = PurchaseEvent(
            eventId: "reconcile:2000000000000001:1", bundleId: TestApple.bundleId, userId: "u-1",
            payload: .signedTransaction(try self.apple.sign(self.subscription)), source: .reconcile,
            signedRenewalInfo: try self.renewalInfo())
        let request = try Self.forwarded(
            IntakeRules().purchase(event, receivedAt: Timestamp(millisecondsSince1970: 1_763_000_100_000)))
        #expect(request.source == .reconcile)
        #expect(request.signedRenewalInfo == event.signedRenewalInfo)

        let record = try #require(try await self.verifier().verify(request).records.first)
        #expect(record.source == .reconcile)
        #expect(record.renewal == RenewalDetails(autoRenewProductId: "pro_yearly", autoRenewStatus: .on))
    }

    @Test func renewalInfoOfAnotherSubscriptionOrAnotherSignerIsRefused() async throws {
        let transaction = try self.apple.sign(self.subscription)
        let other = try Requests.purchase(.signedTransaction(transaction))
        var mismatched = other
        mismatched.signedRenewalInfo = try self.renewalInfo(of: "2000000000000099")
        let refusal = try #require(try await self.verifier().verify(mismatched).rejection)
        #expect(refusal.reason == .malformedEvent)

        var forged = other
        forged.signedRenewalInfo = try self.renewalInfo(signer: try TestApple())
        let forgery = try #require(try await self.verifier().verify(forged).rejection)
        #expect([ReasonCode.invalidSignature, .invalidCertificate].contains(forgery.reason))
    }

    @Test func aSubscriptionViewPastItsExpiryExpiresAnActiveEntitlement() async throws {
        let store = InMemoryEntitlementStateStore()
        let rules = GrantRules(store: store)
        let verifiedAt: Int64 = 1_763_000_100_500
        func view(expires: Int64, signed: Int64) -> MatchedTransaction {
            Records.matched(
                Records.verified(
                    Records.transaction(
                        "101", original: "100", productId: "pro_monthly", type: .autoRenewableSubscription,
                        purchaseDate: expires - 30 * 86_400_000, expiresDate: expires, signedDate: signed)))
        }
        let granted = try await rules.decide(view(expires: verifiedAt + 10_000, signed: verifiedAt - 500_000))
        #expect(granted.events.map(\.action) == [.grant])
        try await rules.commit(granted)
        // Apple's newer view of the same period, verified after it ended: the sweep's case.
        var lapsed = view(expires: verifiedAt + 10_000, signed: verifiedAt - 400_000)
        lapsed.verified.verifiedAt = Timestamp(millisecondsSince1970: verifiedAt + 20_000)
        lapsed.verified.source = .reconcile
        let expired = try await rules.decide(lapsed)
        #expect(expired.events.map(\.action) == [.expire])
        try await rules.commit(expired)
        // Asked again: nothing more.
        lapsed.verified.verifiedAt = Timestamp(millisecondsSince1970: verifiedAt + 30_000)
        #expect(try await rules.decide(lapsed).events.isEmpty)
    }
}
