import AppStore
import AppStoreModels
import Foundation
import TestSupport
import Testing
import X509

/// Chains built on the fly: trust comes only from configured roots and Apple's OIDs.
@Suite(.timeLimit(.minutes(2))) struct JWSChainTests {
    static let signedDate: Int64 = 1_750_000_000_000

    static func transactionPayload(
        bundleId: String = "com.example.game", environment: String = "Sandbox", extra: [String: Any] = [:]
    ) -> [String: Any] {
        var payload: [String: Any] = [
            "transactionId": "2000000000000001", "originalTransactionId": "2000000000000001",
            "bundleId": bundleId, "productId": "gems_100", "type": "Consumable", "quantity": 1,
            "purchaseDate": signedDate - 1000, "signedDate": signedDate, "environment": environment,
            "inAppOwnershipType": "PURCHASED", "transactionReason": "PURCHASE",
        ]
        payload.merge(extra) { $1 }
        return payload
    }

    static func verifier(
        trusting chain: TestSigningChain,
        environment: AppStoreEnvironment = .sandbox,
        appAppleId: Int64? = nil,
        validationTime: ValidationTime = .signedDate
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            .init(
                rootCertificates: [try chain.rootDER], bundleId: "com.example.game", appAppleId: appAppleId,
                environment: environment, validationTime: validationTime
            ))
    }

    @Test func ownChainWithOwnRootTrustedIsValid() async throws {
        let chain = try TestSigningChain()
        let result = try await Self.verifier(trusting: chain).verifyAndDecodeTransaction(
            try chain.sign(Self.transactionPayload()))
        let transaction = try #require(result.payload)
        #expect(transaction.productId == "gems_100")
    }

    @Test func selfMadeRootThatIsNotTrustedIsRefused() async throws {
        let chain = try TestSigningChain()
        let verifier = try SignedDataVerifier(.init(bundleId: "com.example.game", environment: .sandbox))
        let result = await verifier.verifyAndDecodeTransaction(try chain.sign(Self.transactionPayload()))
        #expect(result.error?.code == .invalidChain)
    }

    /// x5c[2] is attacker-controlled: a trusted root there must not matter, nor an untrusted one.
    @Test func thirdCertificateIsIgnored() async throws {
        let chain = try TestSigningChain()
        let stranger = try TestSigningChain(name: "Stranger")
        let jws = try chain.sign(Self.transactionPayload(), x5c: [chain.leaf, chain.intermediate, stranger.root])
        #expect(try await Self.verifier(trusting: chain).verifyAndDecodeTransaction(jws).payload != nil)

        let impostor = try chain.sign(
            Self.transactionPayload(), x5c: [stranger.leaf, stranger.intermediate, chain.root])
        #expect(
            try await Self.verifier(trusting: chain).verifyAndDecodeTransaction(impostor).error?.code == .invalidChain)
    }

    @Test func leafWithoutReceiptSigningOIDIsRefused() async throws {
        var options = TestSigningChain.Options()
        options.leafHasReceiptOID = false
        let chain = try TestSigningChain(options)
        let result = try await Self.verifier(trusting: chain).verifyAndDecodeTransaction(
            try chain.sign(Self.transactionPayload()))
        #expect(result.error?.code == .invalidChain)
    }

    @Test func intermediateWithoutWWDROIDIsRefused() async throws {
        var options = TestSigningChain.Options()
        options.intermediateHasWWDROID = false
        let chain = try TestSigningChain(options)
        let result = try await Self.verifier(trusting: chain).verifyAndDecodeTransaction(
            try chain.sign(Self.transactionPayload()))
        #expect(result.error?.code == .invalidChain)
    }

    @Test func leafExpiredAtSignedDateIsRefused() async throws {
        var options = TestSigningChain.Options()
        options.leafValidity = Date(timeIntervalSince1970: 1_600_000_000)...Date(timeIntervalSince1970: 1_700_000_000)
        let chain = try TestSigningChain(options)
        let result = try await Self.verifier(trusting: chain).verifyAndDecodeTransaction(
            try chain.sign(Self.transactionPayload()))
        #expect(result.error?.code == .invalidChain)
    }

    /// After a chain is cached, a payload signed outside its validity window must still fail.
    @Test func cachedChainStillHonoursItsValidityWindow() async throws {
        var options = TestSigningChain.Options()
        options.leafValidity = Date(timeIntervalSince1970: 1_700_000_000)...Date(timeIntervalSince1970: 1_800_000_000)
        let chain = try TestSigningChain(options)
        let verifier = try Self.verifier(trusting: chain)
        let inside = try chain.sign(Self.transactionPayload())
        #expect(await verifier.verifyAndDecodeTransaction(inside).payload != nil)
        #expect(await verifier.verifyAndDecodeTransaction(inside).payload != nil)
        let outside = try chain.sign(Self.transactionPayload(extra: ["signedDate": Int64(1_850_000_000_000)]))
        #expect(await verifier.verifyAndDecodeTransaction(outside).error?.code == .invalidChain)
        let before = try chain.sign(Self.transactionPayload(extra: ["signedDate": Int64(1_650_000_000_000)]))
        #expect(await verifier.verifyAndDecodeTransaction(before).error?.code == .invalidChain)
    }

    @Test func cachedChainDoesNotSkipTheSignature() async throws {
        let chain = try TestSigningChain()
        let verifier = try Self.verifier(trusting: chain)
        #expect(await verifier.verifyAndDecodeTransaction(try chain.sign(Self.transactionPayload())).payload != nil)
        var parts = try chain.sign(Self.transactionPayload()).split(separator: ".").map(String.init)
        parts[1] = TestSigningChain.base64URL(
            try JSONSerialization.data(withJSONObject: Self.transactionPayload(extra: ["quantity": 100])))
        #expect(
            await verifier.verifyAndDecodeTransaction(parts.joined(separator: ".")).error?.code == .verificationFailure)
    }

    @Test func unknownEnumerationValuesSurviveDecoding() async throws {
        let chain = try TestSigningChain()
        let payload = Self.transactionPayload(extra: [
            "type": "Quantum Subscription", "inAppOwnershipType": "BORROWED", "offerType": 9,
            "offerDiscountType": "PAY_WITH_HUGS", "transactionReason": "GIFT", "brandNewField": ["x": 1],
        ])
        let transaction = try #require(
            try await Self.verifier(trusting: chain).verifyAndDecodeTransaction(try chain.sign(payload)).payload)
        #expect(transaction.type?.rawValue == "Quantum Subscription")
        #expect(transaction.inAppOwnershipType?.rawValue == "BORROWED")
        #expect(transaction.offerType?.rawValue == 9)
        #expect(transaction.offerDiscountType?.rawValue == "PAY_WITH_HUGS")
        #expect(transaction.transactionReason?.rawValue == "GIFT")
    }

    @Test func xcodeEnvironmentNeedsExplicitOptIn() throws {
        #expect(throws: ConfigurationError(.unsignedEnvironmentNotEnabled, "")) {
            try SignedDataVerifier(.init(bundleId: "com.example.game", environment: .xcode))
        }
        #expect(throws: ConfigurationError(.unsignedEnvironmentNotEnabled, "")) {
            try SignedDataVerifier(.init(bundleId: "com.example.game", environment: .localTesting))
        }
    }

    @Test func xcodeDataIsRefusedByASandboxVerifier() async throws {
        let chain = try TestSigningChain()
        let jws = try chain.sign(Self.transactionPayload(environment: "Xcode"))
        #expect(
            try await Self.verifier(trusting: chain).verifyAndDecodeTransaction(jws).error?.code == .invalidEnvironment)
    }

    @Test func xcodeDataIsAcceptedOnlyWhenEnabled() async throws {
        let chain = try TestSigningChain()
        let jws = try chain.sign(Self.transactionPayload(environment: "Xcode"), x5c: [chain.leaf])
        let verifier = try SignedDataVerifier(
            .init(
                bundleId: "com.example.game", environment: .xcode, allowUnsignedTestEnvironments: true
            ))
        #expect(await verifier.verifyAndDecodeTransaction(jws).payload?.environment == .xcode)
    }

    @Test func productionVerifierNeedsAppAppleId() throws {
        #expect(throws: ConfigurationError(.missingAppAppleId, "")) {
            try SignedDataVerifier(.init(bundleId: "com.example.game", environment: .production))
        }
    }

    @Test func notificationVerifiesNestedTransactionAndRenewal() async throws {
        let chain = try TestSigningChain()
        let renewal: [String: Any] = [
            "originalTransactionId": "2000000000000001", "productId": "sub", "autoRenewStatus": 1,
            "signedDate": Self.signedDate, "environment": "Sandbox",
        ]
        let notification: [String: Any] = [
            "notificationType": "DID_RENEW", "subtype": "BILLING_RECOVERY", "notificationUUID": "n-1", "version": "2.0",
            "signedDate": Self.signedDate,
            "data": [
                "bundleId": "com.example.game", "environment": "Sandbox", "status": 1,
                "signedTransactionInfo": try chain.sign(Self.transactionPayload()),
                "signedRenewalInfo": try chain.sign(renewal),
            ] as [String: Any],
        ]
        let verified = try #require(
            try await Self.verifier(trusting: chain).verifyAndDecodeNotification(try chain.sign(notification)).payload)
        #expect(verified.payload.notificationType == .didRenew)
        #expect(verified.payload.subtype == .billingRecovery)
        #expect(verified.payload.data?.status == .active)
        #expect(verified.transaction?.productId == "gems_100")
        #expect(verified.renewalInfo?.autoRenewStatus == .on)
    }

    @Test func notificationWithNestedTransactionOfAnotherBundleIsRefused() async throws {
        let chain = try TestSigningChain()
        let notification: [String: Any] = [
            "notificationType": "REFUND", "notificationUUID": "n-2", "version": "2.0", "signedDate": Self.signedDate,
            "data": [
                "bundleId": "com.example.game", "environment": "Sandbox",
                "signedTransactionInfo": try chain.sign(Self.transactionPayload(bundleId: "com.evil.app")),
            ] as [String: Any],
        ]
        let result = try await Self.verifier(trusting: chain).verifyAndDecodeNotification(try chain.sign(notification))
        #expect(result.error?.code == .invalidAppIdentifier)
    }

    @Test func notificationWithForgedNestedTransactionIsRefused() async throws {
        let chain = try TestSigningChain()
        let forger = try TestSigningChain(name: "Forger")
        let notification: [String: Any] = [
            "notificationType": "ONE_TIME_CHARGE", "notificationUUID": "n-3", "version": "2.0",
            "signedDate": Self.signedDate,
            "data": [
                "bundleId": "com.example.game", "environment": "Sandbox",
                "signedTransactionInfo": try forger.sign(Self.transactionPayload()),
            ] as [String: Any],
        ]
        let result = try await Self.verifier(trusting: chain).verifyAndDecodeNotification(try chain.sign(notification))
        #expect(result.error?.code == .invalidChain)
    }

    @Test func summaryAndExternalPurchaseTokenNotificationsCarryTheirIdentity() async throws {
        let chain = try TestSigningChain()
        let verifier = try Self.verifier(trusting: chain)
        let summary: [String: Any] = [
            "notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY", "notificationUUID": "n-4",
            "signedDate": Self.signedDate,
            "summary": ["bundleId": "com.example.game", "environment": "Sandbox", "succeededCount": 3] as [String: Any],
        ]
        #expect(
            await verifier.verifyAndDecodeNotification(try chain.sign(summary)).payload?.payload.summary?.succeededCount
                == 3)
        let token: [String: Any] = [
            "notificationType": "EXTERNAL_PURCHASE_TOKEN", "subtype": "CREATED", "notificationUUID": "n-5",
            "signedDate": Self.signedDate,
            "externalPurchaseToken": ["bundleId": "com.example.game", "externalPurchaseId": "SANDBOX_123"]
                as [String: Any],
        ]
        let decoded = try #require(await verifier.verifyAndDecodeNotification(try chain.sign(token)).payload)
        #expect(decoded.payload.subtype == .created)
        let empty: [String: Any] = [
            "notificationType": "TEST", "notificationUUID": "n-6", "signedDate": Self.signedDate,
        ]
        #expect(await verifier.verifyAndDecodeNotification(try chain.sign(empty)).error?.code == .invalidAppIdentifier)
    }

    @Test func appTransactionUsesReceiptTypeAndCreationDate() async throws {
        let chain = try TestSigningChain()
        let payload: [String: Any] = [
            "receiptType": "Sandbox", "bundleId": "com.example.game", "appAppleId": 42, "applicationVersion": "1",
            "receiptCreationDate": Self.signedDate, "originalPurchaseDate": Self.signedDate - 5,
            "appTransactionId": "7",
        ]
        let appTransaction = try #require(
            try await Self.verifier(trusting: chain).verifyAndDecodeAppTransaction(try chain.sign(payload)).payload)
        #expect(appTransaction.appTransactionId == "7")
        var production = payload
        production["receiptType"] = "Production"
        let productionVerifier = try Self.verifier(trusting: chain, environment: .production, appAppleId: 43)
        #expect(
            await productionVerifier.verifyAndDecodeAppTransaction(try chain.sign(production)).error?.code
                == .invalidAppIdentifier)
    }

    /// A rescind-consent notification's `appData.signedAppTransactionInfo` is verified and decoded
    /// beside it, as a notification's nested transaction is; a nested one that does not verify
    /// refuses the notification.
    @Test func aNotificationsNestedAppTransactionIsVerified() async throws {
        let chain = try TestSigningChain()
        let app: [String: Any] = [
            "receiptType": "Sandbox", "bundleId": "com.example.game", "appAppleId": 42,
            "receiptCreationDate": Self.signedDate, "appTransactionId": "71134",
        ]
        func notification(_ nested: String) -> [String: Any] {
            [
                "notificationType": "RESCIND_CONSENT", "notificationUUID": "n-7", "signedDate": Self.signedDate,
                "appData": [
                    "appAppleId": 42, "bundleId": "com.example.game", "environment": "Sandbox",
                    "signedAppTransactionInfo": nested,
                ],
            ]
        }
        let verifier = try Self.verifier(trusting: chain)
        let decoded = try #require(
            await verifier.verifyAndDecodeNotification(try chain.sign(notification(try chain.sign(app)))).payload)
        #expect(decoded.appTransaction?.appTransactionId == "71134")
        let stranger = try TestSigningChain()
        #expect(
            await verifier.verifyAndDecodeNotification(try chain.sign(notification(try stranger.sign(app)))).error?.code
                == .invalidChain)
    }

    /// Retention Messaging's real-time request names no bundle id: its app Apple id (production)
    /// and its environment are checked, as Apple's libraries do.
    @Test func aRealtimeRequestIsCheckedByAppAppleIdAndEnvironment() async throws {
        let chain = try TestSigningChain()
        let request: [String: Any] = [
            "originalTransactionId": "99371282", "appAppleId": 531412, "productId": "com.example.product",
            "userLocale": "en-US", "requestIdentifier": "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9",
            "environment": "Production", "signedDate": Self.signedDate,
        ]
        let jws = try chain.sign(request)
        #expect(SignedPayloadKind(detecting: jws) == .realtimeRequest)
        let production = try Self.verifier(trusting: chain, environment: .production, appAppleId: 531412)
        #expect(try #require(await production.verifyAndDecodeRealtimeRequest(jws).payload).userLocale == "en-US")
        let otherApp = try Self.verifier(trusting: chain, environment: .production, appAppleId: 1)
        #expect(await otherApp.verifyAndDecodeRealtimeRequest(jws).error?.code == .invalidAppIdentifier)
        let sandbox = try Self.verifier(trusting: chain, environment: .sandbox)
        #expect(await sandbox.verifyAndDecodeRealtimeRequest(jws).error?.code == .invalidEnvironment)
    }
}
