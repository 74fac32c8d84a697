import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@Suite("Faults", .timeLimit(.minutes(2)))
struct FaultTests {
    let key = P256Key()

    private func setFaults(_ client: SimulatorClient, kinds: [String], rate: Double = 1) async throws {
        let result = try await client.request(
            .PUT, "/sim/v1/faults", json: ["rate": rate, "kinds": kinds, "latencyMs": 0])
        #expect(result.status == 200)
    }

    @Test(
        "Server API faults answer in Apple's error format",
        arguments: [
            ("5000001", 500, 5_000_001), ("4040002", 404, 4_040_002), ("429", 429, 4_290_000),
        ])
    func serverAPIFault(kind: String, status: Int, errorCode: Int) async throws {
        try await withSimulator { client in
            let id = try await client.purchase().string("transactionId")
            try await setFaults(client, kinds: [kind])
            let result = try await client.request(.GET, "/sandbox/inApps/v1/transactions/\(id)", token: try key.token())
            #expect(result.status == status)
            #expect(try result.json()["errorCode"] as? Int == errorCode)
            if kind == "429" {
                let retryAfter = try #require(result.headers.first(name: "Retry-After").flatMap(Int64.init))
                #expect(retryAfter > Int64(Date().timeIntervalSince1970 * 1000) - 60_000, "Retry-After must be UNIX ms")
            }
            // The control API is never faulted.
            #expect(
                try await client.request(.POST, "/sim/v1/purchases", json: ["productId": "x", "type": "Consumable"])
                    .status == 200)
        }
    }

    @Test(
        "verifyReceipt faults answer with Apple's statuses",
        arguments: [("21100", 21100, true), ("21199", 21199, true), ("21005", 21005, false)])
    func verifyReceiptFault(kind: String, status: Int, retryable: Bool) async throws {
        try await withSimulator { client in
            let receipt = try await client.purchase().string("appReceipt")
            try await setFaults(client, kinds: [kind])
            let result = try await client.request(.POST, "/sandbox/verifyReceipt", json: ["receipt-data": receipt])
            #expect(result.status == 200)
            #expect(try result.json()["status"] as? Int == status)
            #expect((try result.json()["is_retryable"] as? Bool ?? false) == retryable)
        }
    }

    @Test("html fault: HTTP 200 with an HTML body on both surfaces")
    func htmlFault() async throws {
        try await withSimulator(.init(faults: .init(rate: 1, kinds: [.html]))) { client in
            let id = try await client.purchase().string("transactionId")
            for (path, json) in [
                ("/sandbox/inApps/v1/transactions/\(id)", nil), ("/sandbox/verifyReceipt", ["receipt-data": "x"]),
            ] {
                let result = try await client.request(
                    json == nil ? .GET : .POST, path, json: json, token: try key.token())
                #expect(result.status == 200)
                #expect(result.headers.first(name: "Content-Type")?.hasPrefix("text/html") == true)
                #expect(String(decoding: result.body, as: UTF8.self).hasPrefix("<html>"))
            }
        }
    }

    @Test("timeout fault holds the response past the client's timeout")
    func timeoutFault() async throws {
        try await withSimulator(.init(faultHangDuration: .seconds(30))) { client in
            try await setFaults(client, kinds: ["timeout"])
            await #expect(throws: HTTPClientError.self) {
                _ = try await client.request(
                    .POST, "/production/verifyReceipt", json: ["receipt-data": "x"], timeout: .milliseconds(500))
            }
        }
    }

    @Test("rate 0 means no faults; unknown kinds and bad rates are refused")
    func validation() async throws {
        try await withSimulator(.init(faults: .init(rate: 0, kinds: [.generalInternalRetryable]))) { client in
            let id = try await client.purchase().string("transactionId")
            #expect(
                try await client.request(.GET, "/sandbox/inApps/v1/transactions/\(id)", token: try key.token()).status
                    == 200)
            let unknown = try await client.request(.PUT, "/sim/v1/faults", json: ["rate": 0.5, "kinds": ["teapot"]])
            #expect(unknown.status == 400)
            #expect(try unknown.string("message").contains("teapot"))
            let badRate = try await client.request(.PUT, "/sim/v1/faults", json: ["rate": 2, "kinds": ["429"]])
            #expect(badRate.status == 400)
            let badRetryAfter = try await client.request(
                .PUT, "/sim/v1/faults", json: ["rate": 1, "kinds": ["429"], "retryAfterMs": -1])
            #expect(badRetryAfter.status == 400)
        }
        #expect(throws: SimulatorError.self) { try FaultKind("21200") }
        #expect(try FaultKind("21150").rawValue == "21150")
    }
}
