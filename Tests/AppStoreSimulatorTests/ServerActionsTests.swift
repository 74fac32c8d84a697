import AppStore
import AppStoreModels
import AppStoreSimulator
import Foundation
import NIOHTTP1
import Testing

/// The Server API's actions between the pipeline's `AppStoreServerAPIClient` and the simulator:
/// Finish Transaction, Set App Account Token, Get App Transaction Info, and the renewal-date
/// extensions, one and mass with its status; each with the refusal Apple answers.
@Suite(.timeLimit(.minutes(2))) struct ServerActionsTests {
    static let p8 = ServerAPIKey.generateP8()

    static func withAPI(
        _ body: (SimulatorClient, AppStoreServerAPIClient, SignedDataVerifier) async throws -> Void
    ) async throws {
        let key = try ServerAPIKey(keyId: "KEY123", issuerId: "issuer-1", p8PEM: Self.p8)
        try await withSimulator(.init(apiKeys: [key])) { client in
            let api = try AppStoreServerAPIClient(
                configuration: .init(
                    privateKeyPEM: Self.p8, keyId: "KEY123", issuerId: "issuer-1", bundleId: "com.example.game",
                    environment: .production, productionBaseURL: client.base + "/production",
                    sandboxBaseURL: client.base + "/sandbox"))
            let verifier = try SignedDataVerifier(
                .init(
                    rootCertificates: [try client.simulator.certificateAuthority.rootDER()],
                    bundleId: "com.example.game", appAppleId: 1_234_567_890, environment: .production,
                    validationTime: .now))
            try await body(client, api, verifier)
        }
    }

    static func apiErrorCode(_ call: () async throws -> Void) async -> Int64? {
        do {
            try await call()
            return nil
        } catch let error as AppStoreAPIError {
            return error.apiErrorCode
        } catch {
            return -1
        }
    }

    @Test func finishingATransactionIsSeenBySimulatorAndRepeatable() async throws {
        try await Self.withAPI { client, api, _ in
            let id = try await client.purchase(environment: "Production").string("transactionId")
            #expect(
                try await client.request(.GET, "/sim/v1/transactions/\(id)/finished").json()["finished"] as? Bool
                    == false)
            _ = try await api.finishTransaction(transactionId: id)
            _ = try await api.finishTransaction(transactionId: id)
            #expect(
                try await client.request(.GET, "/sim/v1/transactions/\(id)/finished").json()["finished"] as? Bool
                    == true)
            #expect(await Self.apiErrorCode { _ = try await api.finishTransaction(transactionId: "999") } == 4_040_010)
        }
    }

    @Test func anAppAccountTokenSetOnAPurchaseLineReachesItsRenewals() async throws {
        try await Self.withAPI { client, api, verifier in
            let purchase = try await client.purchase(
                productId: "monthly", type: "Auto-Renewable Subscription", environment: "Production")
            let original = try purchase.string("originalTransactionId")
            let token = UUID()
            _ = try await api.setAppAccountToken(originalTransactionId: original, token: token)
            let renewal = try await client.request(.POST, "/sim/v1/subscriptions/\(original)/renew", json: [:])
            let renewed = try #require(
                await verifier.verifyAndDecodeTransaction(try renewal.string("signedTransaction")).payload)
            #expect(renewed.appAccountToken == token.uuidString.lowercased())
            let signedFirst = try #require(
                try await api.getTransactionInfo(transactionId: original).value.signedTransactionInfo)
            let first = try #require(await verifier.verifyAndDecodeTransaction(signedFirst).payload)
            #expect(first.appAccountToken == token.uuidString.lowercased())
            let renewalId = try renewal.string("transactionId")
            #expect(
                await Self.apiErrorCode {
                    _ = try await api.setAppAccountToken(originalTransactionId: renewalId, token: token)
                }
                    == 4_000_187, "a renewal is not the purchase line's original")
            let shared = try await client.purchase(
                environment: "Production", extra: ["inAppOwnershipType": "FAMILY_SHARED"]
            ).string("transactionId")
            #expect(
                await Self.apiErrorCode {
                    _ = try await api.setAppAccountToken(originalTransactionId: shared, token: token)
                }
                    == 4_000_185)
        }
    }

    @Test func theAppTransactionIsTheCustomersAndVerifies() async throws {
        try await Self.withAPI { client, api, verifier in
            let purchase = try await client.purchase(environment: "Production")
            let signed = try #require(
                try await api.getAppTransactionInfo(anyTransactionId: try purchase.string("transactionId")).value
                    .signedAppTransactionInfo)
            let app = try #require(await verifier.verifyAndDecodeAppTransaction(signed).payload)
            #expect(app.bundleId == "com.example.game" && app.receiptType == .production)
            #expect(
                app.appTransactionId
                    == (try jwsPayload(try purchase.string("signedTransaction"))["appTransactionId"] as? String))
            #expect(
                await Self.apiErrorCode { _ = try await api.getAppTransactionInfo(anyTransactionId: "999") }
                    == 4_040_019)
        }
    }

    @Test func anExtensionMovesThePeriodsEndAndNotifies() async throws {
        try await Self.withAPI { client, api, verifier in
            let purchase = try await client.purchase(
                productId: "monthly", type: "Auto-Renewable Subscription", environment: "Production")
            let original = try purchase.string("originalTransactionId")
            let before = try #require(
                await verifier.verifyAndDecodeTransaction(try purchase.string("signedTransaction")).payload?.expiresDate
            )
            let request = ExtendRenewalDateRequest(
                extendByDays: 3, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "outage-1")
            let extended = try await api.extendSubscriptionRenewalDate(originalTransactionId: original, request).value
            #expect(extended.success == true && extended.originalTransactionId == original)
            #expect(extended.effectiveDate?.millisecondsSince1970 == before.millisecondsSince1970 + 3 * 86_400_000)
            _ = try await api.extendSubscriptionRenewalDate(originalTransactionId: original, request)
            #expect(
                await Self.apiErrorCode {
                    _ = try await api.extendSubscriptionRenewalDate(originalTransactionId: original, request)
                }
                    == 4_030_005, "twice a year at most")
            var tooLong = request
            tooLong.extendByDays = 91
            #expect(
                await Self.apiErrorCode {
                    _ = try await api.extendSubscriptionRenewalDate(originalTransactionId: original, tooLong)
                }
                    == 4_000_009)
        }
    }

    @Test func aMassExtensionReachesEveryActiveSubscriberOfTheProduct() async throws {
        try await Self.withAPI { client, api, verifier in
            var originals: [String] = []
            for _ in 0..<3 {
                originals.append(
                    try await client.purchase(
                        productId: "monthly", type: "Auto-Renewable Subscription", environment: "Production",
                        extra: ["appAccountToken": UUID().uuidString]
                    ).string("originalTransactionId"))
            }
            _ = try await client.purchase(
                productId: "yearly", type: "Auto-Renewable Subscription", environment: "Production",
                extra: ["appAccountToken": UUID().uuidString])
            let accepted = try await api.extendRenewalDateForAllActiveSubscribers(
                MassExtendRenewalDateRequest(
                    productId: "monthly", extendByDays: 7, extendReasonCode: .customerSatisfaction,
                    requestIdentifier: "goodwill-1")
            ).value
            #expect(accepted.requestIdentifier == "goodwill-1")
            let status = try await api.getStatusOfSubscriptionRenewalDateExtensions(
                requestIdentifier: "goodwill-1", productId: "monthly"
            ).value
            #expect(status.complete == true && status.succeededCount == 3 && status.failedCount == 0)
            #expect(
                await Self.apiErrorCode {
                    _ = try await api.getStatusOfSubscriptionRenewalDateExtensions(
                        requestIdentifier: "other", productId: "monthly")
                } == 4_040_009)
            let info = try #require(
                try await api.getTransactionInfo(transactionId: originals[0]).value.signedTransactionInfo)
            let payload = try #require(await verifier.verifyAndDecodeTransaction(info).payload)
            let purchased = try #require(payload.purchaseDate?.millisecondsSince1970)
            #expect((payload.expiresDate?.millisecondsSince1970 ?? 0) - purchased > 7 * 86_400_000)
        }
    }
}
