import AppStoreSimulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Control API", .timeLimit(.minutes(2)))
struct ControlAPITests {
    @Test(
        "every product type is purchasable and signed like Apple's",
        arguments: [
            "Consumable", "Non-Consumable", "Auto-Renewable Subscription", "Non-Renewing Subscription",
        ])
    func purchase(type: String) async throws {
        try await withSimulator { client in
            let token = UUID().uuidString.lowercased()
            let result = try await client.purchase(
                productId: "product.\(type.count)", type: type, extra: ["appAccountToken": token, "quantity": 2]
            )
            let transactionId = try result.string("transactionId")
            #expect(transactionId.count == 16 && transactionId.hasPrefix("2") && transactionId.allSatisfy(\.isNumber))
            #expect(try result.string("originalTransactionId") == transactionId)
            #expect(!(try result.string("appReceipt")).isEmpty)
            #expect(!(try result.string("transactionReceipt")).isEmpty)

            let payload = try await verifyJWS(
                try result.string("signedTransaction"), rootPEMPath: client.simulator.rootCertificatePath)
            #expect(payload["transactionId"] as? String == transactionId)
            #expect(payload["type"] as? String == type)
            #expect(payload["bundleId"] as? String == "com.example.game")
            #expect(payload["environment"] as? String == "Sandbox")
            #expect(payload["quantity"] as? Int == 2)
            #expect(payload["appAccountToken"] as? String == token)
            #expect(payload["inAppOwnershipType"] as? String == "PURCHASED")
            #expect(payload["purchaseDate"] is Int && payload["signedDate"] is Int)
            let isSubscription = type == "Auto-Renewable Subscription"
            #expect((payload["expiresDate"] != nil) == isSubscription)
            #expect((payload["webOrderLineItemId"] != nil) == isSubscription)

            let notification = try jwsPayload(try result.string("signedPayload"))
            #expect(notification["notificationType"] as? String == (isSubscription ? "SUBSCRIBED" : "ONE_TIME_CHARGE"))
        }
    }

    @Test("renewal keeps originalTransactionId and extends expiresDate")
    func renew() async throws {
        try await withSimulator { client in
            let first = try await client.purchase(type: "Auto-Renewable Subscription", extra: ["expiresInSeconds": 300])
            let original = try first.string("originalTransactionId")
            let renewal = try await client.request(.POST, "/sim/v1/subscriptions/\(original)/renew")
            #expect(renewal.status == 200)
            #expect(try renewal.string("originalTransactionId") == original)
            #expect(try renewal.string("transactionId") != original)

            let before = try jwsPayload(try first.string("signedTransaction"))
            let after = try jwsPayload(try renewal.string("signedTransaction"))
            #expect(after["transactionReason"] as? String == "RENEWAL")
            #expect((after["expiresDate"] as? Int ?? 0) > (before["expiresDate"] as? Int ?? .max))
            #expect(after["webOrderLineItemId"] as? String != before["webOrderLineItemId"] as? String)

            let notification = try jwsPayload(try renewal.string("signedPayload"))
            #expect(notification["notificationType"] as? String == "DID_RENEW")
            let data = try #require(notification["data"] as? [String: Any])
            #expect(
                try jwsPayload(try #require(data["signedTransactionInfo"] as? String))["transactionId"] as? String
                    == (try renewal.string("transactionId")))
            #expect(
                try jwsPayload(try #require(data["signedRenewalInfo"] as? String))["originalTransactionId"] as? String
                    == original)
        }
    }

    @Test("expire sends EXPIRED with status 2")
    func expire() async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase(type: "Auto-Renewable Subscription")
            let original = try purchase.string("originalTransactionId")
            let expired = try await client.request(.POST, "/sim/v1/subscriptions/\(original)/expire")
            #expect(expired.status == 200)
            let notification = try jwsPayload(try expired.string("signedPayload"))
            #expect(notification["notificationType"] as? String == "EXPIRED")
            #expect(notification["subtype"] as? String == "VOLUNTARY")
            #expect((notification["data"] as? [String: Any])?["status"] as? Int == 2)
            #expect(try await client.request(.POST, "/sim/v1/subscriptions/\(original)/expire").status == 409)
        }
    }

    @Test("auto-renew toggles send DID_CHANGE_RENEWAL_STATUS and show in renewal info")
    func autoRenew() async throws {
        try await withSimulator { client in
            let original = try await client.purchase(type: "Auto-Renewable Subscription").string(
                "originalTransactionId")
            let off = try await client.request(
                .POST, "/sim/v1/subscriptions/\(original)/auto-renew", json: ["enabled": false])
            let notification = try jwsPayload(try off.string("signedPayload"))
            #expect(notification["notificationType"] as? String == "DID_CHANGE_RENEWAL_STATUS")
            #expect(notification["subtype"] as? String == "AUTO_RENEW_DISABLED")
            let data = try #require(notification["data"] as? [String: Any])
            #expect(try jwsPayload(try #require(data["signedRenewalInfo"] as? String))["autoRenewStatus"] as? Int == 0)
            let again = try await client.request(
                .POST, "/sim/v1/subscriptions/\(original)/auto-renew", json: ["enabled": false])
            #expect(again.status == 409)
            let on = try await client.request(
                .POST, "/sim/v1/subscriptions/\(original)/auto-renew", json: ["enabled": true])
            #expect(try jwsPayload(try on.string("signedPayload"))["subtype"] as? String == "AUTO_RENEW_ENABLED")
        }
    }

    @Test(
        "refund and revoke set revocationDate",
        arguments: [("refund", "REFUND", "REFUND_FULL"), ("revoke", "REVOKE", "FAMILY_REVOKE")])
    func revocation(action: String, type: String, revocationType: String) async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase(
                type: "Non-Consumable", extra: ["inAppOwnershipType": "FAMILY_SHARED"])
            let id = try purchase.string("transactionId")
            let result = try await client.request(.POST, "/sim/v1/transactions/\(id)/\(action)")
            #expect(result.status == 200)
            let notification = try await verifyJWS(
                try result.string("signedPayload"), rootPEMPath: client.simulator.rootCertificatePath)
            #expect(notification["notificationType"] as? String == type)
            #expect(notification["version"] as? String == "2.0")
            let data = try #require(notification["data"] as? [String: Any])
            #expect(data["environment"] as? String == "Sandbox")
            #expect(data["bundleId"] as? String == "com.example.game")
            let transaction = try jwsPayload(try #require(data["signedTransactionInfo"] as? String))
            #expect(transaction["transactionId"] as? String == id)
            #expect(transaction["revocationDate"] is Int)
            #expect(transaction["revocationType"] as? String == revocationType)
            #expect(try await client.request(.POST, "/sim/v1/transactions/\(id)/\(action)").status == 409)
        }
    }

    @Test("an upgrade in the same group continues the subscription and marks the old one isUpgraded")
    func upgrade() async throws {
        try await withSimulator { client in
            let token = UUID().uuidString
            let group = ["appAccountToken": token, "subscriptionGroupIdentifier": "premium"]
            let basic = try await client.purchase(productId: "basic", type: "Auto-Renewable Subscription", extra: group)
            let pro = try await client.purchase(productId: "pro", type: "Auto-Renewable Subscription", extra: group)
            #expect(try pro.string("originalTransactionId") == (try basic.string("transactionId")))
            let notification = try jwsPayload(try pro.string("signedPayload"))
            #expect(notification["notificationType"] as? String == "DID_CHANGE_RENEWAL_PREF")
            #expect(notification["subtype"] as? String == "UPGRADE")

            let key = P256Key()
            let lookup = try await client.request(
                .GET, "/sandbox/inApps/v1/transactions/\(try basic.string("transactionId"))", token: try key.token()
            )
            #expect(try jwsPayload(try lookup.string("signedTransactionInfo"))["isUpgraded"] as? Bool == true)
        }
    }

    @Test("transaction ids are unique")
    func uniqueIds() async throws {
        try await withSimulator { client in
            var ids = Set<String>()
            for _ in 0..<30 {
                ids.insert(try await client.purchase().string("transactionId"))
            }
            #expect(ids.count == 30)
        }
    }

    @Test("bad requests get a 4xx JSON error, never a crash")
    func badRequests() async throws {
        try await withSimulator { client in
            let badType = try await client.request(
                .POST, "/sim/v1/purchases", json: ["productId": "x", "type": "Gift"])
            #expect(badType.status == 400)
            #expect(try badType.string("error") == "badRequest")
            let notJSON = try await client.request(.POST, "/sim/v1/purchases", rawBody: Data("{oops".utf8))
            #expect(notJSON.status == 400)
            let missing = try await client.request(.POST, "/sim/v1/purchases", json: ["type": "Consumable"])
            #expect(missing.status == 400)
            #expect(try missing.string("message").contains("productId"))
            let badEnvironment = try await client.request(
                .POST, "/sim/v1/purchases", json: ["productId": "x", "type": "Consumable", "environment": "Xcode"]
            )
            #expect(badEnvironment.status == 400)
            #expect(try await client.request(.POST, "/sim/v1/subscriptions/123/renew").status == 404)
            let consumable = try await client.purchase()
            let renewConsumable = try await client.request(
                .POST, "/sim/v1/subscriptions/\(try consumable.string("transactionId"))/renew"
            )
            #expect(renewConsumable.status == 409)
            #expect(try await client.request(.POST, "/sim/v1/transactions/999/refund").status == 404)
        }
    }

    @Test("root.pem serves the root written to rootCertificatePath")
    func rootPEM() async throws {
        try await withSimulator { client in
            let served = try await client.request(.GET, "/sim/v1/root.pem")
            #expect(served.status == 200)
            let written = try String(contentsOfFile: client.simulator.rootCertificatePath, encoding: .utf8)
            let text = String(decoding: served.body, as: UTF8.self)
            #expect(text.hasPrefix("-----BEGIN CERTIFICATE-----"))
            #expect(
                written.trimmingCharacters(in: .whitespacesAndNewlines)
                    == text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
