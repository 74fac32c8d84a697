import AppStoreSimulator
import Foundation
import NIOHTTP1
import Testing

/// Send Consumption Information v2 and the control routes around it (decision D34).
@Suite("Consumption", .timeLimit(.minutes(2)))
struct ConsumptionTests {
    let key = P256Key()
    var configuration: AppStoreSimulatorConfiguration { .init(apiKeys: [key.apiKey]) }

    static var answer: [String: Any] {
        [
            "customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED",
            "consumptionPercentage": 100_000, "refundPreference": "DECLINE",
        ]
    }

    @Test("a CONSUMPTION_REQUEST names the transaction and the customer's reason")
    func consumptionRequest() async throws {
        try await withSimulator(configuration) { client in
            let id = try await client.purchase().string("transactionId")
            let sent = try await client.request(
                .POST, "/sim/v1/transactions/\(id)/consumption-request", json: ["reason": "FULFILLMENT_ISSUE"])
            #expect(sent.status == 200)
            let payload = try await verifyJWS(
                try sent.string("signedPayload"), rootPEMPath: client.simulator.rootCertificatePath)
            #expect(payload["notificationType"] as? String == "CONSUMPTION_REQUEST")
            let data = try #require(payload["data"] as? [String: Any])
            #expect(data["consumptionRequestReason"] as? String == "FULFILLMENT_ISSUE")
            let transaction = try jwsPayload(try #require(data["signedTransactionInfo"] as? String))
            #expect(transaction["transactionId"] as? String == id)

            let unlock = try await client.purchase(productId: "unlock", type: "Non-Consumable").string("transactionId")
            let refused = try await client.request(.POST, "/sim/v1/transactions/\(unlock)/consumption-request")
            #expect(refused.status == 409)
            let unknown = try await client.request(.POST, "/sim/v1/transactions/999/consumption-request")
            #expect(unknown.status == 404)
        }
    }

    @Test("an answer is accepted with 202 and listed; Apple's rules refuse bad ones")
    func answers() async throws {
        try await withSimulator(configuration) { client in
            let id = try await client.purchase().string("transactionId")
            let path = "/sandbox/inApps/v2/transactions/consumption/\(id)"
            let accepted = try await client.request(.PUT, path, json: Self.answer, token: try key.token())
            #expect(accepted.status == 202)
            #expect(accepted.body.isEmpty)

            var noConsent = Self.answer
            noConsent["customerConsented"] = false
            var badStatus = Self.answer
            badStatus["deliveryStatus"] = "LOST"
            var noSample = Self.answer
            noSample["sampleContentProvided"] = nil
            var proratedAtZero = Self.answer
            proratedAtZero["refundPreference"] = "GRANT_PRORATED"
            proratedAtZero["consumptionPercentage"] = 0
            for (body, code) in [
                (noConsent, 4_000_035), (badStatus, 4_000_036), (noSample, 4_000_041), (proratedAtZero, 4_000_000),
            ] {
                let refused = try await client.request(.PUT, path, json: body, token: try key.token())
                #expect(refused.status == 400)
                #expect(try refused.json()["errorCode"] as? Int == code)
            }
            let elsewhere = try await client.request(
                .PUT, "/production/inApps/v2/transactions/consumption/\(id)", json: Self.answer,
                token: try key.token())
            #expect(try elsewhere.json()["errorCode"] as? Int == 4_040_010)
            #expect(try await client.request(.PUT, path, json: Self.answer).status == 401)

            let listed = try await client.request(.GET, "/sim/v1/consumption")
            let answers = try #require(try listed.json()["answers"] as? [[String: Any]])
            #expect(answers.count == 1)
            #expect(answers.first?["transactionId"] as? String == id)
            #expect(answers.first?["deliveryStatus"] as? String == "DELIVERED")
            #expect(answers.first?["consumptionPercentage"] as? Int == 100_000)
            #expect(answers.first?["environment"] as? String == "Sandbox")
        }
    }

    @Test("a subscription's answer carries no percentage, as Apple computes it")
    func subscriptionPercentageRefused() async throws {
        try await withSimulator(configuration) { client in
            let id = try await client.purchase(productId: "pro_monthly", type: "Auto-Renewable Subscription")
                .string("transactionId")
            let path = "/sandbox/inApps/v2/transactions/consumption/\(id)"
            let refused = try await client.request(.PUT, path, json: Self.answer, token: try key.token())
            #expect(try refused.json()["errorCode"] as? Int == 4_000_000)
            var answer = Self.answer
            answer["consumptionPercentage"] = nil
            answer["refundPreference"] = "GRANT_PRORATED"
            #expect(try await client.request(.PUT, path, json: answer, token: try key.token()).status == 202)
        }
    }
}
