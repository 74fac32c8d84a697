import AppStore
import AppStoreModels
import Foundation
import TestSupport
import Testing

/// Real Apple-signed JWS: valid at their signing date with the bundled root, refused now.
@Suite(.timeLimit(.minutes(2))) struct JWSVectorTests {
    static func verifier(
        bundleId: String,
        environment: AppStoreEnvironment,
        appAppleId: Int64? = nil,
        validationTime: ValidationTime = .signedDate
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            .init(bundleId: bundleId, appAppleId: appAppleId, environment: environment, validationTime: validationTime))
    }

    @Test func sandboxTransactionVerifiesAtSignedDateAndMatchesManifest() async throws {
        let path = "jws/sandbox-consumable-transaction.jws"
        let verifier = try Self.verifier(bundleId: "com.goodheartapp", environment: .sandbox)
        let result = await verifier.verifyAndDecodeTransaction(try Vectors.text(path))
        let transaction = try #require(result.payload, "\(String(describing: result.error))")
        let expected = Vectors.expected(path)
        #expect(transaction.transactionId == expected["transactionId"] as? String)
        #expect(transaction.originalTransactionId == expected["originalTransactionId"] as? String)
        #expect(transaction.productId == expected["productId"] as? String)
        #expect(transaction.type?.rawValue == expected["type"] as? String)
        #expect(transaction.type == .consumable)
        #expect(transaction.quantity.map(Int.init) == expected["quantity"] as? Int)
        #expect(transaction.purchaseDate?.millisecondsSince1970 == (expected["purchaseDate"] as? NSNumber)?.int64Value)
        #expect(
            transaction.originalPurchaseDate?.millisecondsSince1970
                == (expected["originalPurchaseDate"] as? NSNumber)?.int64Value)
        #expect(transaction.inAppOwnershipType?.rawValue == expected["inAppOwnershipType"] as? String)
        #expect(transaction.transactionReason?.rawValue == expected["transactionReason"] as? String)
        #expect(transaction.storefront == expected["storefront"] as? String)
        #expect(transaction.storefrontId == expected["storefrontId"] as? String)
        #expect(transaction.price == (expected["price"] as? NSNumber)?.int64Value)
        #expect(transaction.currency == expected["currency"] as? String)
        #expect(transaction.environment == .sandbox)
        #expect(transaction.bundleId == "com.goodheartapp")
        #expect(
            transaction.signedDate?.millisecondsSince1970
                == (Vectors.entry(path)["signedDateMs"] as? NSNumber)?.int64Value)
    }

    /// A JWS parsed once to read its claimed environment verifies like its text, and its
    /// claim is only a claim: the same parse is refused by a verifier of another bundle.
    @Test func parsedOnceVerifiesLikeTheTextAndIsStillChecked() async throws {
        let path = "jws/sandbox-consumable-transaction.jws"
        let parsed = try ParsedJWS<JWSTransactionDecodedPayload>(try Vectors.text(path))
        #expect(parsed.claimedPayload.environment == .sandbox)
        let verifier = try Self.verifier(bundleId: "com.goodheartapp", environment: .sandbox)
        let transaction = try #require(await verifier.verifyAndDecodeTransaction(parsed).payload)
        #expect(transaction.transactionId == Vectors.expected(path)["transactionId"] as? String)
        let other = try Self.verifier(bundleId: "com.example.other", environment: .sandbox)
        #expect(await other.verifyAndDecodeTransaction(parsed).error?.code == .invalidAppIdentifier)
    }

    @Test func sandboxRenewalInfoVerifiesAtSignedDateAndMatchesManifest() async throws {
        let path = "jws/sandbox-renewal-info.jws"
        let verifier = try Self.verifier(bundleId: "any.bundle", environment: .sandbox)
        let result = await verifier.verifyAndDecodeRenewalInfo(try Vectors.text(path))
        let renewal = try #require(result.payload, "\(String(describing: result.error))")
        let expected = Vectors.expected(path)
        #expect(renewal.originalTransactionId == expected["originalTransactionId"] as? String)
        #expect(renewal.productId == expected["productId"] as? String)
        #expect(renewal.autoRenewProductId == expected["autoRenewProductId"] as? String)
        #expect(renewal.autoRenewStatus.map { Int($0.rawValue) } == expected["autoRenewStatus"] as? Int)
        #expect(renewal.autoRenewStatus == .on)
        #expect(
            renewal.recentSubscriptionStartDate?.millisecondsSince1970
                == (expected["recentSubscriptionStartDate"] as? NSNumber)?.int64Value)
        #expect(renewal.environment == .sandbox)
    }

    @Test func productionNotificationVerifiesAtSignedDateAndMatchesManifest() async throws {
        let path = "jws/production-test-notification.jws"
        let verifier = try Self.verifier(
            bundleId: "com.nineton.taller", environment: .production, appAppleId: 6_450_284_872)
        let result = await verifier.verifyAndDecodeNotification(try Vectors.text(path))
        let notification = try #require(result.payload, "\(String(describing: result.error))").payload
        let expected = Vectors.expected(path)
        #expect(notification.notificationType?.rawValue == expected["notificationType"] as? String)
        #expect(notification.notificationType == .test)
        #expect(notification.notificationUUID == expected["notificationUUID"] as? String)
        #expect(notification.version == expected["version"] as? String)
        #expect(notification.data?.appAppleId == 6_450_284_872)
        #expect(notification.data?.environment == .production)
        #expect(notification.signedDate?.millisecondsSince1970 == 1_729_136_651_128)
    }

    @Test func productionNotificationWithOtherAppAppleIdIsRefused() async throws {
        let verifier = try Self.verifier(bundleId: "com.nineton.taller", environment: .production, appAppleId: 1)
        let result = await verifier.verifyAndDecodeNotification(
            try Vectors.text("jws/production-test-notification.jws"))
        guard case .invalid(let error) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(error.code == .invalidAppIdentifier)
    }

    @Test(arguments: Vectors.jwsFiles)
    func vectorIsRefusedAtTheCurrentTimeBecauseTheLeafExpired(path: String) async throws {
        let environment: AppStoreEnvironment = path.hasPrefix("jws/production") ? .production : .sandbox
        let verifier = try Self.verifier(
            bundleId: "ignored", environment: environment, appAppleId: 6_450_284_872, validationTime: .now)
        let result = await verifier.verifySignature(try Vectors.text(path), as: JWSTransactionDecodedPayload.self)
        guard case .invalid(let error) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(error.code == .invalidChain)
    }

    @Test(arguments: Vectors.jwsFiles)
    func vectorIsRefusedWhenOnlyAnotherRootIsTrusted(path: String) async throws {
        let otherRoot = try TestSigningChain().rootDER
        let verifier = try SignedDataVerifier(
            .init(rootCertificates: [otherRoot], bundleId: "x", environment: .sandbox))
        let result = await verifier.verifySignature(try Vectors.text(path), as: JWSTransactionDecodedPayload.self)
        #expect(result.error?.code == .invalidChain)
    }

    @Test func wrongBundleIsRefused() async throws {
        let verifier = try Self.verifier(bundleId: "com.example.other", environment: .sandbox)
        let result = await verifier.verifyAndDecodeTransaction(
            try Vectors.text("jws/sandbox-consumable-transaction.jws"))
        guard case .invalid(let error) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(error.code == .invalidAppIdentifier)
    }

    @Test func wrongEnvironmentIsRefused() async throws {
        let verifier = try Self.verifier(bundleId: "com.goodheartapp", environment: .production, appAppleId: 1)
        let result = await verifier.verifyAndDecodeTransaction(
            try Vectors.text("jws/sandbox-consumable-transaction.jws"))
        guard case .invalid(let error) = result else {
            Issue.record("expected invalid, got \(result)")
            return
        }
        #expect(error.code == .invalidEnvironment)
    }
}
