import AppStoreSimulator
import Foundation
import NIOHTTP1
import Testing

@Suite("verifyReceipt", .timeLimit(.minutes(2)))
struct VerifyReceiptTests {
    @Test("a sandbox app receipt verifies at /sandbox with its in-app records")
    func sandboxReceipt() async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase(
                type: "Auto-Renewable Subscription", extra: ["appAccountToken": UUID().uuidString])
            let original = try purchase.string("originalTransactionId")
            let renewal = try await client.request(.POST, "/sim/v1/subscriptions/\(original)/renew")
            let result = try await client.request(
                .POST, "/sandbox/verifyReceipt",
                json: ["receipt-data": try renewal.string("appReceipt"), "password": "secret"]
            )
            let body = try result.json()
            #expect(result.status == 200)
            #expect(body["status"] as? Int == 0)
            #expect(body["environment"] as? String == "Sandbox")
            let receipt = try #require(body["receipt"] as? [String: Any])
            #expect(receipt["bundle_id"] as? String == "com.example.game")
            let inApp = try #require(receipt["in_app"] as? [[String: String]])
            #expect(Set(inApp.compactMap { $0["transaction_id"] }) == [original, try renewal.string("transactionId")])
            let latest = try #require(body["latest_receipt_info"] as? [[String: String]])
            #expect(latest.count == 2)
            #expect(latest.allSatisfy { $0["original_transaction_id"] == original && $0["expires_date_ms"] != nil })
            #expect((body["pending_renewal_info"] as? [[String: String]])?.first?["auto_renew_status"] == "1")

            let onlyLatest = try await client.request(
                .POST, "/sandbox/verifyReceipt",
                json: ["receipt-data": try purchase.string("appReceipt"), "exclude-old-transactions": true]
            )
            let latestOnly = try #require(try onlyLatest.json()["latest_receipt_info"] as? [[String: String]])
            #expect(latestOnly.map { $0["transaction_id"] } == [try renewal.string("transactionId")])
        }
    }

    @Test("environment redirects: 21007 for sandbox at production, 21008 for production at sandbox")
    func environmentMismatch() async throws {
        try await withSimulator { client in
            let sandbox = try await client.purchase(environment: "Sandbox")
            let production = try await client.purchase(environment: "Production")
            for (receipt, path, status) in [
                (try sandbox.string("appReceipt"), "/production/verifyReceipt", 21007),
                (try production.string("appReceipt"), "/sandbox/verifyReceipt", 21008),
                (try sandbox.string("transactionReceipt"), "/production/verifyReceipt", 21007),
                (try production.string("transactionReceipt"), "/sandbox/verifyReceipt", 21008),
                (try production.string("appReceipt"), "/production/verifyReceipt", 0),
            ] {
                let result = try await client.request(.POST, path, json: ["receipt-data": receipt])
                #expect(try result.json()["status"] as? Int == status, "\(path)")
            }
        }
    }

    @Test("garbage receipt-data is 21002; a body that isn't JSON is 21000")
    func garbage() async throws {
        try await withSimulator { client in
            for data in ["", "!!!", Data("hello world".utf8).base64EncodedString()] {
                let result = try await client.request(.POST, "/production/verifyReceipt", json: ["receipt-data": data])
                #expect(try result.json()["status"] as? Int == 21002)
            }
            let missing = try await client.request(.POST, "/production/verifyReceipt", json: [:])
            #expect(try missing.json()["status"] as? Int == 21002)
            let notJSON = try await client.request(.POST, "/production/verifyReceipt", rawBody: Data("receipt".utf8))
            #expect(try notJSON.json()["status"] as? Int == 21000)
        }
    }

    @Test("a StoreKit 1 transaction receipt verifies iOS 6 style")
    func transactionReceipt() async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase(productId: "coins")
            let result = try await client.request(
                .POST, "/sandbox/verifyReceipt", json: ["receipt-data": try purchase.string("transactionReceipt")]
            )
            let body = try result.json()
            #expect(body["status"] as? Int == 0)
            let receipt = try #require(body["receipt"] as? [String: String])
            #expect(receipt["transaction_id"] == (try purchase.string("transactionId")))
            #expect(receipt["product_id"] == "coins")
            #expect(receipt["bid"] == "com.example.game")
        }
    }

    @Test("a configured shared secret is required for subscription receipts (21004)")
    func sharedSecret() async throws {
        try await withSimulator(.init(sharedSecret: "s3cret")) { client in
            let receipt = try await client.purchase(type: "Auto-Renewable Subscription").string("appReceipt")
            let wrong = try await client.request(
                .POST, "/sandbox/verifyReceipt", json: ["receipt-data": receipt, "password": "nope"])
            #expect(try wrong.json()["status"] as? Int == 21004)
            let right = try await client.request(
                .POST, "/sandbox/verifyReceipt", json: ["receipt-data": receipt, "password": "s3cret"])
            #expect(try right.json()["status"] as? Int == 0)
        }
    }
}
