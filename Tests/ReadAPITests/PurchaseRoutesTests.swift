import AppStoreModels
import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReadAPI
import TestSupport
import Testing
import WorkerCommon

/// A purchase event's status (waiting for its end when asked) and a transaction's history (D51).
@Suite(.timeLimit(.minutes(2))) struct PurchaseRoutesTests {
    typealias F = ReadAPIFixture
    static let app = "com.example.game"

    static func entry(
        _ stage: String, _ decision: AuditDecision, event: String, transaction: String? = nil, user: String? = nil,
        transactions: [String]? = nil, effects: [EntitlementAction]? = nil
    ) -> AuditEntry {
        var entry = AuditEntry(
            stage: stage, decision: decision, at: Timestamp(Date()),
            subject: AuditSubject(eventId: event, bundleId: app, transactionId: transaction), userId: user)
        entry.transactions = transactions
        entry.effects = effects
        return entry.identified()
    }

    static func granted(_ event: String, transaction: String) -> [AuditEntry] {
        [
            entry("intake", .accepted, event: event, user: "u-1"),
            entry("verify", .verified, event: event, transaction: transaction, transactions: [transaction]),
            entry("match", .matched, event: event, transaction: transaction, user: "u-1"),
            entry("grant", .changed, event: event, transaction: transaction, user: "u-1", effects: [.grant]),
        ]
    }

    static func get(_ http: some TestClientProtocol, _ uri: String, key: String = F.gameKey) async throws -> (
        HTTPResponse.Status, [String: Any]
    ) {
        try await http.execute(uri: uri, method: .get, headers: [.authorization: "Bearer \(key)"]) { response in
            let body = String(buffer: response.body)
            let json = body.isEmpty ? [:] : try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            return (response.status, json ?? [:])
        }
    }

    @Test func aPublishedEventsStatusAndItsTransactionsHistory() async throws {
        try await withRedisClient { _, client in
            try await RedisAuditIndex(client: client).index(Self.granted("e-1", transaction: "100"))
            let app = Application(router: try F.routes(client, logger: LogCapture().logger()).router())
            try await app.test(.router) { http in
                let (status, body) = try await Self.get(http, "/v1/apps/\(Self.app)/purchases/e-1")
                #expect(status == .ok)
                #expect(body["status"] as? String == "granted" && body["terminal"] as? Bool == true)
                #expect(body["userId"] as? String == "u-1")
                let (found, history) = try await Self.get(http, "/v1/apps/\(Self.app)/transactions/100/history")
                #expect(found == .ok)
                let entries = try #require(history["entries"] as? [[String: Any]])
                #expect(entries.compactMap { $0["stage"] as? String } == ["intake", "verify", "match", "grant"])
            }
        }
    }

    /// `?wait=` answers once the status is terminal, also when that happens during the wait;
    /// at the end of the wait it answers what is known (pending).
    @Test func aWaitingRequestAnswersWhenTheEventEnds() async throws {
        try await withRedisClient { _, client in
            let index = RedisAuditIndex(client: client)
            let trail = Self.granted("e-2", transaction: "200")
            try await index.index(Array(trail.prefix(2)))
            let app = Application(router: try F.routes(client, logger: LogCapture().logger()).router())
            try await app.test(.router) { http in
                let (_, early) = try await Self.get(http, "/v1/apps/\(Self.app)/purchases/e-2?wait=1s")
                #expect(early["status"] as? String == "pending" && early["terminal"] as? Bool == false)
                async let answer = Self.get(http, "/v1/apps/\(Self.app)/purchases/e-2?wait=20")
                try await Task.sleep(for: .milliseconds(500))
                try await index.index(Array(trail.suffix(2)))
                let (status, body) = try await answer
                #expect(status == .ok && body["status"] as? String == "granted")
            }
        }
    }

    @Test func unknownIdsAre404AndBadOnes400AndAnotherAppsAre403() async throws {
        try await withRedisClient { _, client in
            try await RedisAuditIndex(client: client).index(Self.granted("e-3", transaction: "300"))
            let app = Application(router: try F.routes(client, logger: LogCapture().logger()).router())
            try await app.test(.router) { http in
                let cases: [(String, String, HTTPResponse.Status, String)] = [
                    ("/v1/apps/\(Self.app)/purchases/nobody", F.gameKey, .notFound, "not_found"),
                    ("/v1/apps/\(Self.app)/transactions/999/history", F.gameKey, .notFound, "not_found"),
                    ("/v1/apps/\(Self.app)/purchases/e-3?wait=31s", F.gameKey, .badRequest, "invalid_parameter"),
                    ("/v1/apps/\(Self.app)/purchases/e-3?wait=soon", F.gameKey, .badRequest, "invalid_parameter"),
                    ("/v1/apps/\(Self.app)/transactions/3%2000/history", F.gameKey, .badRequest, "invalid_parameter"),
                    ("/v1/apps/\(Self.app)/purchases/e-3", F.otherKey, .forbidden, "forbidden"),
                    ("/v1/apps/\(Self.app)/transactions/300/history", F.otherKey, .forbidden, "forbidden"),
                ]
                for (uri, key, expected, code) in cases {
                    let (status, body) = try await Self.get(http, uri, key: key)
                    #expect(status == expected, "\(uri)")
                    #expect((body["error"] as? [String: Any])?["code"] as? String == code, "\(uri)")
                }
            }
        }
    }
}
