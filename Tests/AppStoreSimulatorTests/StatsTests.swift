import AppStoreSimulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Stats", .timeLimit(.minutes(2)))
struct StatsTests {
    let key = P256Key()

    private func stats(_ client: SimulatorClient, method: HTTPMethod = .GET) async throws -> [String: Any] {
        let result = try await client.request(method, "/sim/v1/stats")
        #expect(result.status == 200)
        return try result.json()
    }

    private func earlyCalls(_ client: SimulatorClient) async throws -> Int? {
        try await stats(client)["callsBeforeRetryAfter"] as? Int
    }

    private func setFaults(_ client: SimulatorClient, _ body: [String: Any]) async throws {
        #expect(try await client.request(.PUT, "/sim/v1/faults", json: body).status == 200)
    }

    private func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The `Retry-After` instant of a 429, in UNIX ms.
    private func retryAfter(_ result: HTTPResult) throws -> Int64 {
        #expect(result.status == 429)
        return try #require(result.headers.first(name: "Retry-After").flatMap(Int64.init))
    }

    @Test("a call before Retry-After counts; another transaction, the other environment and a call after it don't")
    func callsBeforeRetryAfter() async throws {
        try await withSimulator { client in
            let id = try await client.purchase().string("transactionId")
            let other = try await client.purchase().string("transactionId")
            let third = try await client.purchase().string("transactionId")
            let token = try key.token()
            let path = "/sandbox/inApps/v1/transactions/\(id)"
            // A minute: the early calls below are early on however slow a machine.
            try await setFaults(client, ["rate": 1, "kinds": ["429"], "retryAfterMs": 60_000])

            let sentAt = now()
            _ = try retryAfter(try await client.request(.GET, path, token: token))
            #expect(try await earlyCalls(client) == 0)
            #expect(
                try retryAfter(try await client.request(.GET, path, token: token)) >= sentAt + 60_000,
                "Retry-After follows retryAfterMs")
            #expect(try await earlyCalls(client) == 1)
            // The query is not part of the resource.
            _ = try retryAfter(try await client.request(.GET, path + "?attempt=3", token: token))
            #expect(try await earlyCalls(client) == 2)

            _ = try await client.request(.GET, "/sandbox/inApps/v1/transactions/\(other)", token: token)
            _ = try await client.request(.GET, "/production/inApps/v1/transactions/\(id)", token: token)
            #expect(try await earlyCalls(client) == 2)

            // A call after its Retry-After passed does not count.
            try await setFaults(client, ["rate": 1, "kinds": ["429"], "retryAfterMs": 200])
            let thirdPath = "/sandbox/inApps/v1/transactions/\(third)"
            let waitUntil = try retryAfter(try await client.request(.GET, thirdPath, token: token))
            try await Task.sleep(for: .milliseconds(max(0, waitUntil - now() + 50)))
            _ = try retryAfter(try await client.request(.GET, thirdPath, token: token))
            let counted = try await stats(client)
            #expect(counted["callsBeforeRetryAfter"] as? Int == 2)
            #expect(counted["serverAPIRequests"] as? Int == 7)
            #expect(counted["faults"] as? [String: Int] == ["429": 7])
        }
    }

    @Test("an early call counts even when it is answered normally")
    func earlyCallWithoutFault() async throws {
        try await withSimulator { client in
            let id = try await client.purchase().string("transactionId")
            let path = "/sandbox/inApps/v1/transactions/\(id)"
            try await setFaults(client, ["rate": 1, "kinds": ["429"], "retryAfterMs": 60_000])
            _ = try retryAfter(try await client.request(.GET, path, token: try key.token()))
            try await setFaults(client, ["rate": 0])
            #expect(try await client.request(.GET, path, token: try key.token()).status == 200)
            #expect(try await earlyCalls(client) == 1)
        }
    }

    @Test(
        "requests are counted per surface and faults per kind, not control calls; DELETE answers and clears the counts")
    func countsAndReset() async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase()
            let transaction = "/sandbox/inApps/v1/transactions/\(try purchase.string("transactionId"))"
            let receipt = ["receipt-data": try purchase.string("appReceipt")]
            #expect(try await client.request(.GET, transaction, token: try key.token()).status == 200)
            #expect(
                try await client.request(.POST, "/sandbox/verifyReceipt", json: receipt).json()["status"] as? Int == 0)

            try await setFaults(client, ["rate": 1, "kinds": ["5000001", "21005"]])
            #expect(try await client.request(.GET, transaction, token: try key.token()).status == 500)
            #expect(try await client.request(.GET, transaction, token: try key.token()).status == 500)
            #expect(
                try await client.request(.POST, "/sandbox/verifyReceipt", json: receipt).json()["status"] as? Int
                    == 21005)

            let counted = try await stats(client)
            #expect(
                Set(counted.keys) == ["serverAPIRequests", "verifyReceiptRequests", "faults", "callsBeforeRetryAfter"])
            #expect(counted["serverAPIRequests"] as? Int == 3)
            #expect(counted["verifyReceiptRequests"] as? Int == 2)
            #expect(counted["faults"] as? [String: Int] == ["5000001": 2, "21005": 1])
            #expect(counted["callsBeforeRetryAfter"] as? Int == 0)

            let cleared = try await stats(client, method: .DELETE)
            #expect(cleared["serverAPIRequests"] as? Int == 3)
            let after = try await stats(client)
            #expect(after["serverAPIRequests"] as? Int == 0)
            #expect(after["verifyReceiptRequests"] as? Int == 0)
            #expect(after["faults"] as? [String: Int] == [:])
        }
    }
}
