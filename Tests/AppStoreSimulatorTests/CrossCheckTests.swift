import AppStore
import AppStoreModels
import AppStoreSimulator
import Foundation
import NIOHTTP1
import Testing

/// The simulator against the pipeline's real `AppStore` module: if these pass, workers pointed
/// at the simulator accept what it signs and read what it encodes.
@Suite("Cross-check with the AppStore module", .timeLimit(.minutes(2)))
struct CrossCheckTests {
    private func verifier(_ client: SimulatorClient, environment: AppStoreEnvironment) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            .init(
                rootCertificates: [try client.simulator.certificateAuthority.rootDER()],
                bundleId: "com.example.game", appAppleId: 1_234_567_890, environment: environment, validationTime: .now
            ))
    }

    @Test("SignedDataVerifier accepts the simulator's transactions, renewal infos and notifications")
    func verifierAccepts() async throws {
        try await withSimulator { client in
            let token = UUID().uuidString.lowercased()
            let purchase = try await client.purchase(
                productId: "monthly", type: "Auto-Renewable Subscription", environment: "Production",
                extra: ["appAccountToken": token]
            )
            let production = try verifier(client, environment: .production)
            let transaction = try #require(
                await production.verifyAndDecodeTransaction(try purchase.string("signedTransaction")).payload
            )
            #expect(transaction.transactionId == (try purchase.string("transactionId")))
            #expect(transaction.type?.rawValue == "Auto-Renewable Subscription")
            #expect(transaction.appAccountToken == token)
            #expect(transaction.expiresDate != nil)

            let notification = try #require(
                await production.verifyAndDecodeNotification(try purchase.string("signedPayload")).payload
            )
            #expect(notification.payload.notificationType?.rawValue == "SUBSCRIBED")
            #expect(notification.transaction?.transactionId == transaction.transactionId)
            #expect(notification.renewalInfo?.originalTransactionId == transaction.originalTransactionId)

            let sandbox = try verifier(client, environment: .sandbox)
            #expect(await sandbox.verifyAndDecodeTransaction(try purchase.string("signedTransaction")).payload == nil)
        }
    }

    @Test("the receipt decoders read the simulator's app and transaction receipts")
    func receiptDecoders() async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase(productId: "gems", environment: "Sandbox", extra: ["quantity": 5])
            let id = try purchase.string("transactionId")
            let receipt = try AppReceiptDecoder.decode(base64: try purchase.string("appReceipt"))
            #expect(receipt.bundleId == "com.example.game")
            #expect(receipt.environment == "ProductionSandbox")
            #expect(receipt.creationDate != nil)
            #expect(receipt.inApp.map(\.transactionId) == [id])
            #expect(receipt.inApp.first?.quantity == 5)
            #expect(receipt.inApp.first?.purchaseDate != nil)
            #expect(receipt.lookupTransactionIds.contains(id))

            let transactionReceipt = try TransactionReceiptDecoder.decode(
                base64: try purchase.string("transactionReceipt"))
            #expect(transactionReceipt.transactionId == id)
            #expect(transactionReceipt.productId == "gems")
            #expect(transactionReceipt.bundleId == "com.example.game")
            #expect(transactionReceipt.environment == "Sandbox")
        }
    }

    @Test("the Server API client falls back from production to sandbox on 4040010")
    func serverAPIClient() async throws {
        let p8 = ServerAPIKey.generateP8()
        let key = try ServerAPIKey(keyId: "KEY123", issuerId: "issuer-1", p8PEM: p8)
        try await withSimulator(.init(apiKeys: [key])) { client in
            let id = try await client.purchase(environment: "Sandbox").string("transactionId")
            let api = try AppStoreServerAPIClient(
                configuration: .init(
                    privateKeyPEM: p8, keyId: "KEY123", issuerId: "issuer-1", bundleId: "com.example.game",
                    productionBaseURL: client.base + "/production", sandboxBaseURL: client.base + "/sandbox"
                ))
            let response = try await api.getTransactionInfo(transactionId: id)
            #expect(response.environment == .sandbox)
            #expect(
                try jwsPayload(try #require(response.value.signedTransactionInfo))["transactionId"] as? String == id)

            _ = try await client.request(.PUT, "/sim/v1/faults", json: ["rate": 1, "kinds": ["429"]])
            do {
                _ = try await api.getTransactionInfo(transactionId: id)
                Issue.record("a 429 fault was not reported")
            } catch let error as AppStoreAPIError {
                guard case .retry = error.outcome else {
                    Issue.record("429 classified as \(error.outcome)")
                    return
                }
            }
        }
    }

    @Test("the verifyReceipt client follows 21007 from production to sandbox")
    func verifyReceiptClient() async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase(environment: "Sandbox")
            let verify = VerifyReceiptClient(
                configuration: .init(
                    productionURL: client.base + "/production/verifyReceipt",
                    sandboxURL: client.base + "/sandbox/verifyReceipt"
                ))
            let response = try await verify.verify(receiptData: try purchase.string("appReceipt"))
            #expect(response.environment == .sandbox)
            #expect(response.value.status == 0)
        }
    }
}

/// Every fault kind must be something the pipeline's classifier treats as "retry later",
/// otherwise fault runs would dead-letter purchases instead of delaying them.
@Suite("Faults as the AppStore classifier sees them", .timeLimit(.minutes(2)))
struct FaultClassificationTests {
    @Test("Server API faults classify as retry", arguments: ["5000001", "4040002", "429", "html", "timeout"])
    func serverAPI(kind: String) async throws {
        let p8 = ServerAPIKey.generateP8()
        let key = try ServerAPIKey(keyId: "KEY123", p8PEM: p8)
        try await withSimulator(.init(faultHangDuration: .seconds(30), apiKeys: [key])) { client in
            let id = try await client.purchase(environment: "Production").string("transactionId")
            _ = try await client.request(.PUT, "/sim/v1/faults", json: ["rate": 1, "kinds": [kind]])
            let api = try AppStoreServerAPIClient(
                configuration: .init(
                    privateKeyPEM: p8, keyId: "KEY123", issuerId: "issuer-1", bundleId: "com.example.game",
                    productionBaseURL: client.base + "/production", sandboxBaseURL: client.base + "/sandbox",
                    timeout: .milliseconds(500)
                ))
            do {
                _ = try await api.getTransactionInfo(transactionId: id)
                Issue.record("fault \(kind) was not reported")
            } catch let error as AppStoreAPIError {
                guard case .retry = error.outcome else {
                    Issue.record("fault \(kind) classified as \(error.outcome)")
                    return
                }
            }
        }
    }

    @Test("verifyReceipt faults classify as retry", arguments: ["21100", "21005", "html", "timeout"])
    func verifyReceipt(kind: String) async throws {
        try await withSimulator(.init(faultHangDuration: .seconds(30))) { client in
            let receipt = try await client.purchase(environment: "Production").string("appReceipt")
            _ = try await client.request(.PUT, "/sim/v1/faults", json: ["rate": 1, "kinds": [kind]])
            let verify = VerifyReceiptClient(
                configuration: .init(
                    productionURL: client.base + "/production/verifyReceipt",
                    sandboxURL: client.base + "/sandbox/verifyReceipt",
                    timeout: .milliseconds(500)
                ))
            do {
                _ = try await verify.verify(receiptData: receipt)
                Issue.record("fault \(kind) was not reported")
            } catch let error as VerifyReceiptClient.Failure {
                guard case .retry = error.outcome else {
                    Issue.record("fault \(kind) classified as \(error.outcome)")
                    return
                }
            }
        }
    }
}
