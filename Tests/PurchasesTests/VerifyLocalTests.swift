import AppStoreModels
import Contracts
import Foundation
import Purchases
import TestSupport
import Testing

/// Verify: signed transactions and notifications are checked locally, never with Apple.
@Suite(.timeLimit(.minutes(2))) struct VerifyLocalTests {
    let apple: TestApple
    let source = FakeAppleSource.unused
    let gate = ScriptedGate()
    let cache = InMemoryVerifiedTransactionCache()

    init() throws {
        self.apple = try TestApple()
    }

    func verifier(_ policy: EnvironmentPolicy = .init()) throws -> TransactionVerifier {
        try TransactionVerifier(
            configuration: try self.apple.configuration(policy: policy),
            source: self.source, cache: self.cache, gate: self.gate,
            now: { Timestamp(millisecondsSince1970: 1_763_000_200_000) }
        )
    }

    @Test func signedTransactionIsVerifiedLocally() async throws {
        let spec = TransactionSpec(quantity: 3, appAccountToken: "7E3D2A1C-0000-4000-8000-000000000001")
        let request = try Requests.purchase(.signedTransaction(try self.apple.sign(spec)), orderId: "o-1")
        let outcome = try await self.verifier().verify(request)

        let record = try #require(outcome.records.first)
        #expect(outcome.records.count == 1)
        #expect(record.transaction.transactionId == "2000000000000001")
        #expect(record.transaction.originalTransactionId == "2000000000000001")
        #expect(record.transaction.productType == .consumable)
        #expect(record.transaction.quantity == 3)
        #expect(record.transaction.environment == .sandbox)
        #expect(record.transaction.appAccountToken == "7E3D2A1C-0000-4000-8000-000000000001")
        #expect(record.transaction.purchaseDate == Timestamp(millisecondsSince1970: 1_763_000_000_000))
        #expect(record.transaction.signedDate == Timestamp(millisecondsSince1970: 1_763_000_001_000))
        #expect(record.hints.userId == "u-1")
        #expect(record.hints.orderId == "o-1")
        #expect(record.source == .storeKit2)
        #expect(record.receivedAt == Requests.receivedAt)
        #expect(record.verifiedAt == Timestamp(millisecondsSince1970: 1_763_000_200_000))
        #expect(record.notification == nil)
        #expect(record.partitionKey == "2000000000000001")

        #expect(self.source.calls.isEmpty)
        #expect(self.gate.calls.isEmpty)
        #expect(await self.cache.get(transactionId: "2000000000000001") == record.transaction)
    }

    @Test func realAppleSignedVectorVerifiesAtItsSigningDate() async throws {
        let verifier = try TransactionVerifier(
            configuration: VerifyConfiguration(bundleId: "com.goodheartapp", appAppleId: 1),
            source: self.source, cache: self.cache, gate: self.gate
        )
        let request = try Requests.purchase(
            .signedTransaction(try Fixtures.text("jws/sandbox-consumable-transaction.jws")),
            bundleId: "com.goodheartapp")
        let record = try #require(try await verifier.verify(request).records.first)
        #expect(record.transaction.transactionId == "2000000847061981")
        #expect(record.transaction.productId == "gh_super_good_ticket_1")
        #expect(record.transaction.productType == .consumable)
        #expect(record.transaction.environment == .sandbox)
        #expect(record.transaction.purchaseDate == Timestamp(millisecondsSince1970: 1_738_645_560_000))
    }

    @Test func forgedPayloadIsAnInvalidSignature() async throws {
        let genuine = try self.apple.sign(TransactionSpec(quantity: 1))
        let parts = genuine.split(separator: ".").map(String.init)
        let forgedBody = try JSONSerialization.data(withJSONObject: TransactionSpec(quantity: 500).payload)
        let forged = [parts[0], TestSigningChain.base64URL(forgedBody), parts[2]].joined(separator: ".")

        let refusal = try #require(
            try await self.verifier().verify(try Requests.purchase(.signedTransaction(forged))).rejection)
        #expect(refusal.reason == .invalidSignature)
        #expect(refusal.detail.contains("VERIFICATION_FAILURE"))
        #expect(await self.cache.get(transactionId: "2000000000000001") == nil)
    }

    /// A forger who also rewrote the environment (to one the policy refuses, or to nonsense)
    /// must still be caught as a forgery, not reported as a policy refusal.
    @Test(arguments: ["Sandbox", "Productaon"])
    func forgedEnvironmentIsAnInvalidSignature(_ environment: String) async throws {
        // Signed as a Production purchase of 1; the forger asks for 7 in another environment.
        let genuine = try self.apple.sign(TransactionSpec(quantity: 1, environment: "Production"))
        let parts = genuine.split(separator: ".").map(String.init)
        let forgedBody = try JSONSerialization.data(
            withJSONObject: TransactionSpec(quantity: 7, environment: environment).payload)
        let forged = [parts[0], TestSigningChain.base64URL(forgedBody), parts[2]].joined(separator: ".")

        let productionOnly = try self.verifier(
            EnvironmentPolicy(deployment: .production, acceptSandboxInProduction: false))
        let refusal = try #require(
            try await productionOnly.verify(try Requests.purchase(.signedTransaction(forged))).rejection)
        #expect(refusal.reason == .invalidSignature)
    }

    @Test func dataSignedByAnotherAuthorityIsAnInvalidCertificate() async throws {
        let stranger = try TestSigningChain(name: "Stranger")
        let jws = try stranger.sign(TransactionSpec().payload)
        let refusal = try #require(
            try await self.verifier().verify(try Requests.purchase(.signedTransaction(jws))).rejection)
        #expect(refusal.reason == .invalidCertificate)
    }

    @Test func anotherAppsTransactionIsTheWrongBundle() async throws {
        let jws = try self.apple.sign(TransactionSpec(bundleId: "com.other.app"))
        let refusal = try #require(
            try await self.verifier().verify(try Requests.purchase(.signedTransaction(jws))).rejection)
        #expect(refusal.reason == .wrongBundle)

        let foreignEvent = try Requests.purchase(.transactionId("1"), bundleId: "com.other.app")
        let early = try #require(try await self.verifier().verify(foreignEvent).rejection)
        #expect(early.reason == .wrongBundle)
        #expect(early.detail == "event bundleId 'com.other.app' is not com.example.game")
        #expect(self.gate.calls.isEmpty)
    }

    @Test func xcodeDataIsRefusedUnlessEnabled() async throws {
        // Xcode data is signed by a local key: any chain will do, none is checked.
        let jws = try TestSigningChain(name: "Xcode").sign(TransactionSpec(environment: "Xcode").payload)
        let request = try Requests.purchase(.signedTransaction(jws))

        let refusal = try #require(try await self.verifier().verify(request).rejection)
        #expect(refusal.reason == .xcodeNotAllowed)

        let enabled = try self.verifier(EnvironmentPolicy(deployment: .sandbox, acceptXcode: true))
        let record = try #require(try await enabled.verify(request).records.first)
        #expect(record.transaction.environment == .xcode)
    }

    @Test func sandboxInProductionFollowsThePolicy() async throws {
        let request = try Requests.purchase(
            .signedTransaction(try self.apple.sign(TransactionSpec(environment: "Sandbox"))))

        let accepted = try await self.verifier(
            EnvironmentPolicy(deployment: .production, acceptSandboxInProduction: true)
        ).verify(request)
        #expect(accepted.records.first?.transaction.environment == .sandbox)

        let refused = try #require(
            try await self.verifier(EnvironmentPolicy(deployment: .production, acceptSandboxInProduction: false))
                .verify(request).rejection)
        #expect(refused.reason == .sandboxNotAllowed)
    }

    @Test func productionDataInASandboxDeploymentIsTheWrongEnvironment() async throws {
        let request = try Requests.purchase(
            .signedTransaction(try self.apple.sign(TransactionSpec(environment: "Production"))))
        let production = try await self.verifier().verify(request)
        #expect(production.records.first?.transaction.environment == .production)

        let refusal = try #require(
            try await self.verifier(EnvironmentPolicy(deployment: .sandbox)).verify(request).rejection)
        #expect(refusal.reason == .wrongEnvironment)
    }

    // MARK: Notifications

    @Test func notificationCarriesItsLifecycleContext() async throws {
        let spec = TransactionSpec(
            transactionId: "2000000000000002", originalTransactionId: "2000000000000001", productId: "pro_monthly",
            type: "Auto-Renewable Subscription", expiresDate: 1_765_600_000_000
        )
        let signed = try self.apple.notification(
            "DID_RENEW", subtype: "BILLING_RECOVERY", uuid: "n-renew-1", transaction: spec,
            renewal: [
                "originalTransactionId": "2000000000000001", "autoRenewProductId": "pro_yearly", "autoRenewStatus": 1,
            ]
        )
        let request = try Requests.notification(signed)
        let record = try #require(try await self.verifier().verify(request).records.first)
        #expect(
            record.notification
                == NotificationContext(
                    notificationType: .didRenew, subtype: .billingRecovery, notificationUUID: "n-renew-1",
                    signedDate: Timestamp(millisecondsSince1970: 1_763_000_001_000)
                ))
        #expect(record.renewal == RenewalDetails(autoRenewProductId: "pro_yearly", autoRenewStatus: .on))
        #expect(record.transaction.expiresDate == Timestamp(millisecondsSince1970: 1_765_600_000_000))
        #expect(record.source == .notification)
        #expect(record.hints == PublisherHints())
        #expect(record.recordKey == "2000000000000002|n:n-renew-1")
        #expect(record.partitionKey == "2000000000000001")
        #expect(request.idempotencyKey == "notification:n-renew-1")
        #expect(self.source.calls.isEmpty)
    }

    @Test func notificationsWithoutATransactionAreSkipped() async throws {
        let test = try self.apple.notification("TEST", transaction: nil)
        guard case .skip(let reason) = try await self.verifier().verify(try Requests.notification(test)) else {
            Issue.record("TEST notification not skipped")
            return
        }
        #expect(reason.code == .notificationWithoutTransaction)
        #expect(reason.detail == "TEST notification carries no transaction")

        // Apple's own TEST notification (Production, verified against Apple Root CA - G3).
        let real = try TransactionVerifier(
            configuration: VerifyConfiguration(bundleId: "com.nineton.taller", appAppleId: 6_450_284_872),
            source: self.source, cache: self.cache, gate: self.gate
        )
        let outcome = try await real.verify(
            try Requests.notification(try Fixtures.text("jws/production-test-notification.jws")))
        #expect(outcome == .skip(SkipReason(.notificationWithoutTransaction, "")))
    }

    /// The notification types and subtypes that never carry a signed transaction: verify skips
    /// them, grant never sees them (docs/events.md, "Grant rules").
    struct WithoutTransaction: Sendable, CustomTestStringConvertible {
        var type: NotificationTypeV2
        var subtype: NotificationSubtype?
        var testDescription: String { "\(self.type.rawValue)\(self.subtype.map { " \($0.rawValue)" } ?? "")" }
    }

    static let withoutTransaction = [
        WithoutTransaction(type: .test), WithoutTransaction(type: .renewalExtension, subtype: .summary),
        WithoutTransaction(type: .externalPurchaseToken, subtype: .unreported),
        WithoutTransaction(type: .externalPurchaseToken, subtype: .created),
        WithoutTransaction(type: .externalPurchaseToken, subtype: .activeTokenReminder),
        WithoutTransaction(type: .rescindConsent),
    ]

    @Test(arguments: Self.withoutTransaction) func notificationTypesWithoutATransactionAreSkipped(
        _ row: WithoutTransaction
    ) async throws {
        let signed = try self.apple.notification(row.type.rawValue, subtype: row.subtype?.rawValue, transaction: nil)
        let outcome = try await self.verifier().verify(try Requests.notification(signed))
        #expect(outcome == .skip(SkipReason(.notificationWithoutTransaction, "")))
    }

    @Test func lifecycleFieldsReachTheVerifiedRecord() async throws {
        var spec = TransactionSpec(
            transactionId: "2000000000000002", originalTransactionId: "2000000000000001", productId: "pro_monthly",
            type: "Auto-Renewable Subscription", expiresDate: 1_765_600_000_000
        )
        spec.price = 4_990
        spec.currency = "EUR"
        spec.storefront = "DEU"
        spec.offerType = 2
        spec.offerIdentifier = "spring"
        let signed = try self.apple.notification(
            "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", transaction: spec,
            renewal: [
                "originalTransactionId": "2000000000000001", "autoRenewStatus": 1, "expirationIntent": 2,
                "isInBillingRetryPeriod": true, "gracePeriodExpiresDate": 1_767_000_000_000, "offerType": 3,
                "offerIdentifier": "code-1",
            ]
        )
        let record = try #require(try await self.verifier().verify(try Requests.notification(signed)).records.first)
        #expect(record.transaction.price == 4_990)
        #expect(record.transaction.currency == "EUR")
        #expect(record.transaction.storefront == "DEU")
        #expect(record.transaction.offerType == .promotionalOffer)
        #expect(record.transaction.offerIdentifier == "spring")
        #expect(
            record.renewal
                == RenewalDetails(
                    autoRenewStatus: .on, expirationIntent: .billingError, isInBillingRetryPeriod: true,
                    gracePeriodExpiresDate: Timestamp(millisecondsSince1970: 1_767_000_000_000), offerType: .offerCode,
                    offerIdentifier: "code-1"))
    }

    @Test func aNotificationIsOnlyAsTrustworthyAsWhatItCarries() async throws {
        let genuine = try self.apple.notification(
            "REFUND", transaction: TransactionSpec(revocationDate: 1_763_100_000_000))
        let parts = genuine.split(separator: ".").map(String.init)
        let body = try #require(Self.base64URLDecode(parts[1]))
        var payload = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        payload["notificationType"] = "REFUND_REVERSED"
        let forged = [
            parts[0], TestSigningChain.base64URL(try JSONSerialization.data(withJSONObject: payload)), parts[2],
        ].joined(separator: ".")
        let refusal = try #require(try await self.verifier().verify(try Requests.notification(forged)).rejection)
        #expect(refusal.reason == .invalidSignature)

        // A genuine envelope around a transaction signed by someone else.
        let stranger = try TestSigningChain(name: "Stranger")
        let data: [String: any Sendable] = [
            "environment": "Sandbox", "bundleId": TestApple.bundleId,
            "signedTransactionInfo": try stranger.sign(TransactionSpec().payload),
        ]
        let wrapped = try self.apple.chain.sign([
            "notificationType": "ONE_TIME_CHARGE", "notificationUUID": "n-x", "signedDate": 1_763_000_000_000,
            "data": data,
        ])
        let nested = try #require(try await self.verifier().verify(try Requests.notification(wrapped)).rejection)
        #expect(nested.reason == .invalidCertificate)
        #expect(nested.detail.contains("signedTransactionInfo"))
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
