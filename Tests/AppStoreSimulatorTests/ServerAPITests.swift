import AppStoreSimulator
import Crypto
import Foundation
import NIOHTTP1
import Testing

@Suite("Server API", .timeLimit(.minutes(2)))
struct ServerAPITests {
    let key = P256Key()
    var configuration: AppStoreSimulatorConfiguration { .init(apiKeys: [key.apiKey]) }

    @Test("Get Transaction Info returns the signed transaction in its own environment only")
    func transactionInfo() async throws {
        try await withSimulator(configuration) { client in
            let id = try await client.purchase(environment: "Sandbox").string("transactionId")
            let found = try await client.request(.GET, "/sandbox/inApps/v1/transactions/\(id)", token: try key.token())
            #expect(found.status == 200)
            let payload = try await verifyJWS(
                try found.string("signedTransactionInfo"), rootPEMPath: client.simulator.rootCertificatePath
            )
            #expect(payload["transactionId"] as? String == id)

            for path in [
                "/production/inApps/v1/transactions/\(id)", "/sandbox/inApps/v1/transactions/2000000000000001",
            ] {
                let missing = try await client.request(.GET, path, token: try key.token())
                #expect(missing.status == 404)
                #expect(try missing.json()["errorCode"] as? Int == 4_040_010)
                #expect(try missing.json()["errorMessage"] is String)
            }
            let otherApp = try await client.request(
                .GET, "/sandbox/inApps/v1/transactions/\(id)", token: try key.token(bundleId: "com.other.app")
            )
            #expect(try otherApp.json()["errorCode"] as? Int == 4_040_010)
            let invalid = try await client.request(.GET, "/sandbox/inApps/v1/transactions/abc", token: try key.token())
            #expect(invalid.status == 400)
            #expect(try invalid.json()["errorCode"] as? Int == 4_000_006)
        }
    }

    @Test("bearer tokens are checked: missing, foreign key, expired, wrong audience, wrong kid all get 401")
    func authentication() async throws {
        try await withSimulator(configuration) { client in
            let id = try await client.purchase().string("transactionId")
            let path = "/sandbox/inApps/v1/transactions/\(id)"
            let stranger = P256.Signing.PrivateKey()
            let bad: [String?] = [
                nil,
                "not.a.jwt",
                try makeToken(key: stranger),
                try makeToken(key: key.privateKey, issuedAt: Date().addingTimeInterval(-7200)),
                try makeToken(key: key.privateKey, audience: "someone-else"),
                try makeToken(key: key.privateKey, keyId: "OTHERKEY"),
                try makeToken(key: key.privateKey, issuer: "issuer-2"),
                try makeToken(key: key.privateKey, lifetime: 7200),
            ]
            for token in bad {
                let result = try await client.request(.GET, path, token: token)
                #expect(result.status == 401, "token \(token ?? "nil") was accepted")
            }
            #expect(try await client.request(.GET, path, token: try key.token()).status == 200)
        }
    }

    @Test("without configured keys any well-formed unexpired token passes")
    func anyWellFormedToken() async throws {
        try await withSimulator { client in
            let id = try await client.purchase().string("transactionId")
            let path = "/sandbox/inApps/v1/transactions/\(id)"
            #expect(try await client.request(.GET, path, token: try makeToken(key: .init())).status == 200)
            #expect(try await client.request(.GET, path, token: nil).status == 401)
        }
    }

    @Test("Transaction History pages 20 at a time with revision")
    func historyPaging() async throws {
        try await withSimulator(configuration) { client in
            let token = UUID().uuidString
            var ids: [String] = []
            for _ in 0..<25 {
                ids.append(try await client.purchase(extra: ["appAccountToken": token]).string("transactionId"))
            }
            let first = try await client.request(.GET, "/sandbox/inApps/v2/history/\(ids[3])", token: try key.token())
            #expect(first.status == 200)
            let firstPage = try #require(try first.json()["signedTransactions"] as? [String])
            #expect(firstPage.count == 20)
            #expect(try first.json()["hasMore"] as? Bool == true)
            #expect(try first.json()["environment"] as? String == "Sandbox")
            let revision = try first.string("revision")
            let second = try await client.request(
                .GET, "/sandbox/inApps/v2/history/\(ids[3])?revision=\(revision)", token: try key.token()
            )
            let secondPage = try #require(try second.json()["signedTransactions"] as? [String])
            #expect(secondPage.count == 5)
            #expect(try second.json()["hasMore"] as? Bool == false)
            let seen = try (firstPage + secondPage).map { try jwsPayload($0)["transactionId"] as? String ?? "" }
            #expect(Set(seen) == Set(ids))
            let bad = try await client.request(
                .GET, "/sandbox/inApps/v2/history/\(ids[0])?revision=zzz", token: try key.token())
            #expect(try bad.json()["errorCode"] as? Int == 4_000_005)
        }
    }

    @Test("Get All Subscription Statuses reports active, then expired")
    func subscriptionStatuses() async throws {
        try await withSimulator(configuration) { client in
            let original = try await client.purchase(type: "Auto-Renewable Subscription").string(
                "originalTransactionId")
            func status() async throws -> Int? {
                let result = try await client.request(
                    .GET, "/sandbox/inApps/v1/subscriptions/\(original)", token: try key.token())
                let groups = try #require(try result.json()["data"] as? [[String: Any]])
                let last = try #require(groups.first?["lastTransactions"] as? [[String: Any]])
                let renewal = try jwsPayload(try #require(last.first?["signedRenewalInfo"] as? String))
                #expect(renewal["originalTransactionId"] as? String == original)
                return last.first?["status"] as? Int
            }
            #expect(try await status() == 1)
            _ = try await client.request(.POST, "/sim/v1/subscriptions/\(original)/expire")
            #expect(try await status() == 2)
        }
    }

    @Test("Get Refund History lists refunded transactions of the customer")
    func refundHistory() async throws {
        try await withSimulator(configuration) { client in
            let token = UUID().uuidString
            let kept = try await client.purchase(extra: ["appAccountToken": token]).string("transactionId")
            let refunded = try await client.purchase(extra: ["appAccountToken": token]).string("transactionId")
            _ = try await client.request(.POST, "/sim/v1/transactions/\(refunded)/refund")
            let result = try await client.request(
                .GET, "/sandbox/inApps/v2/refund/lookup/\(kept)", token: try key.token())
            let signed = try #require(try result.json()["signedTransactions"] as? [String])
            #expect(try signed.map { try jwsPayload($0)["transactionId"] as? String } == [refunded])
            #expect(try result.json()["hasMore"] as? Bool == false)
        }
    }

    @Test("Look Up Order ID finds the purchase")
    func orderLookup() async throws {
        try await withSimulator(configuration) { client in
            let purchase = try await client.purchase()
            let found = try await client.request(
                .GET, "/sandbox/inApps/v1/lookup/\(try purchase.string("orderId"))", token: try key.token())
            #expect(try found.json()["status"] as? Int == 0)
            #expect((try found.json()["signedTransactions"] as? [String])?.count == 1)
            let missing = try await client.request(.GET, "/sandbox/inApps/v1/lookup/NOPE", token: try key.token())
            #expect(try missing.json()["status"] as? Int == 1)
        }
    }

    @Test("Notification History and the test notification")
    func notificationHistory() async throws {
        try await withSimulator(configuration) { client in
            let original = try await client.purchase(type: "Auto-Renewable Subscription").string(
                "originalTransactionId")
            _ = try await client.request(.POST, "/sim/v1/subscriptions/\(original)/renew")
            _ = try await client.purchase(environment: "Production")
            let now = Int(Date().timeIntervalSince1970 * 1000)
            let result = try await client.request(
                .POST, "/sandbox/inApps/v1/notifications/history",
                json: ["startDate": now - 60_000, "endDate": now + 60_000], token: try key.token()
            )
            #expect(result.status == 200)
            let items = try #require(try result.json()["notificationHistory"] as? [[String: Any]])
            let types = try items.map {
                try jwsPayload($0["signedPayload"] as? String ?? "")["notificationType"] as? String
            }
            #expect(types == ["SUBSCRIBED", "DID_RENEW"])

            let both = try await client.request(
                .POST, "/sandbox/inApps/v1/notifications/history",
                json: ["transactionId": original, "notificationType": "REFUND"], token: try key.token()
            )
            #expect(try both.json()["errorCode"] as? Int == 4_000_019)

            let test = try await client.request(
                .POST, "/production/inApps/v1/notifications/test", token: try key.token())
            let token = try test.string("testNotificationToken")
            let status = try await client.request(
                .GET, "/production/inApps/v1/notifications/test/\(token)", token: try key.token())
            let payload = try jwsPayload(try status.string("signedPayload"))
            #expect(payload["notificationType"] as? String == "TEST")
            #expect((payload["data"] as? [String: Any])?["environment"] as? String == "Production")
        }
    }
}
