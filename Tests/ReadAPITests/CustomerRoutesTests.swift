import AppStoreModels
import Customers
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReadAPI
import Synchronization
import TestSupport
import Testing
import WorkerCommon

@Suite(.timeLimit(.minutes(2))) struct CustomerRoutesTests {
    typealias F = ReadAPIFixture
    static let path = "/v1/apps/com.example.game/customers/u-1"

    static func json(_ body: ByteBuffer) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any])
    }

    static func errorCode(_ body: ByteBuffer) throws -> String? {
        (try json(body)["error"] as? [String: Any])?["code"] as? String
    }

    @Test func aCustomerIsRenderedWithTheCatalogAndAnETag() async throws {
        try await withRedisClient { _, client in
            try await F.saveCustomer(RedisCustomerStore(client: client))
            let app = Application(router: try F.routes(client, logger: LogCapture().logger()).router())
            try await app.test(.router) { http in
                let etag = try await http.execute(
                    uri: Self.path, method: .get, headers: [.authorization: "Bearer \(F.gameKey)"]
                ) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/json")
                    let view = try Self.json(response.body)
                    let entitlements = try #require(view["entitlements"] as? [[String: Any]])
                    #expect(entitlements.compactMap { $0["id"] as? String } == ["season_pass", "vip"])
                    #expect((view["credits"] as? [String: [String: Int]]) == ["gems": ["received": 300, "revoked": 0]])
                    #expect((view["unlistedProducts"] as? [String]) == ["season_pass"])
                    return try #require(response.headers[.eTag])
                }
                try await http.execute(
                    uri: Self.path, method: .get,
                    headers: [.authorization: "Bearer \(F.gameKey)", .ifNoneMatch: etag]
                ) { response in
                    #expect(response.status == .notModified)
                    #expect(response.body.readableBytes == 0)
                }
            }
        }
    }

    /// A kept answer is never stale: a changed record and a subscription's end reach the next
    /// read, while an unchanged customer gets the same answer (and `ETag`) again.
    @Test func aKeptAnswerFollowsTheRecordAndTheClock() async throws {
        try await withRedisClient { _, client in
            let store = RedisCustomerStore(client: client)
            try await F.saveCustomer(store)
            let clock = Mutex(F.now)
            let app = Application(
                router: try F.routes(client, logger: LogCapture().logger(), now: { clock.withLock { $0 } }).router())
            try await app.test(.router) { http in
                func read() async throws -> (view: [String: Any], etag: String?) {
                    try await http.execute(
                        uri: Self.path, method: .get, headers: [.authorization: "Bearer \(F.gameKey)"]
                    ) { response in
                        #expect(response.status == .ok)
                        return (try Self.json(response.body), response.headers[.eTag])
                    }
                }
                func entitlements(_ view: [String: Any]) -> [String] {
                    (view["entitlements"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                }
                let first = try await read()
                #expect(entitlements(first.view) == ["season_pass", "vip"])
                #expect(try await read().etag == first.etag, "the same record, the same answer")

                var record = try #require(try await store.record(bundleId: "com.example.game", userId: "u-1"))
                _ = record.apply(F.change("400", "gems_100", .consumable, quantity: 2))
                try await store.save(record)
                let changed = try await read()
                #expect(
                    (changed.view["credits"] as? [String: [String: Int]]) == ["gems": ["received": 500, "revoked": 0]])
                #expect(changed.etag != first.etag)

                // vip_monthly ends at 1_783_000_000_000; the season pass later.
                clock.withLock { $0 = Timestamp(millisecondsSince1970: 1_783_000_000_000) }
                #expect(entitlements(try await read().view) == ["season_pass"], "the end reaches a kept answer")
            }
        }
    }

    @Test func aCustomerNeverSeenHasNothing() async throws {
        try await withRedisClient { _, client in
            let app = Application(router: try F.routes(client, logger: LogCapture().logger()).router())
            try await app.test(.router) { http in
                try await http.execute(
                    uri: "/v1/apps/com.example.game/customers/nobody", method: .get,
                    headers: [.authorization: "Bearer \(F.gameKey)"]
                ) { response in
                    #expect(response.status == .ok)
                    let view = try Self.json(response.body)
                    #expect((view["entitlements"] as? [Any])?.isEmpty == true)
                }
            }
        }
    }

    /// A user id with a letter outside ASCII, a space and a slash reaches the API percent-encoded,
    /// and is looked up as the backend wrote it.
    @Test func aPercentEncodedUserIdIsLookedUpDecoded() async throws {
        try await withRedisClient { _, client in
            try await F.saveCustomer(RedisCustomerStore(client: client), userId: "josé n/1")
            let app = Application(router: try F.routes(client, logger: LogCapture().logger()).router())
            try await app.test(.router) { http in
                try await http.execute(
                    uri: "/v1/apps/com.example.game/customers/jos%C3%A9%20n%2F1", method: .get,
                    headers: [.authorization: "Bearer \(F.gameKey)"]
                ) { response in
                    #expect(response.status == .ok)
                    let view = try Self.json(response.body)
                    #expect(view["userId"] as? String == "josé n/1")
                    // Found, not an empty answer for the name: the saved customer's entitlements.
                    let entitlements = try #require(view["entitlements"] as? [[String: Any]])
                    #expect(entitlements.compactMap { $0["id"] as? String } == ["season_pass", "vip"])
                }
                try await http.execute(
                    uri: "/v1/apps/com.example.game/customers/jos%C3", method: .get,
                    headers: [.authorization: "Bearer \(F.gameKey)"]
                ) { response in
                    #expect(response.status == .badRequest, "a malformed escape")
                }
            }
        }
    }

    /// 401 without a valid key, 403 for another app's data, 400 for a malformed id, each with a
    /// JSON error; and the key a caller sent is in no log line.
    @Test func refusalsAreJSONAndNoKeyIsLogged() async throws {
        try await withRedisClient { _, client in
            let capture = LogCapture()
            let app = Application(router: try F.routes(client, logger: capture.logger()).router())
            let cases: [(String, HTTPFields, HTTPResponse.Status, String)] = [
                (Self.path, [:], .unauthorized, "unauthorized"),
                (Self.path, [.authorization: "Bearer iapk_not-a-key"], .unauthorized, "unauthorized"),
                (Self.path, [.authorization: "Basic \(F.gameKey)"], .unauthorized, "unauthorized"),
                (Self.path, [.authorization: "Bearer \(F.otherKey)"], .forbidden, "forbidden"),
                (
                    "/v1/apps/com.example.game/customers/" + String(repeating: "u", count: 257),
                    [.authorization: "Bearer \(F.gameKey)"], .badRequest, "invalid_parameter"
                ),
                (
                    // One Character of 257 code points: an 'e' and 256 combining acute accents.
                    "/v1/apps/com.example.game/customers/e" + String(repeating: "%CC%81", count: 256),
                    [.authorization: "Bearer \(F.gameKey)"], .badRequest, "invalid_parameter"
                ),
                (
                    "/v1/apps/com.example.game%20x/customers/u-1", [.authorization: "Bearer \(F.gameKey)"],
                    .badRequest, "invalid_parameter"
                ),
            ]
            try await app.test(.router) { http in
                for (uri, headers, status, code) in cases {
                    try await http.execute(uri: uri, method: .get, headers: headers) { response in
                        #expect(response.status == status, "\(uri) \(headers)")
                        #expect(response.headers[.contentType] == "application/json")
                        let found = try Self.errorCode(response.body)
                        #expect(found == code)
                        if status == .unauthorized { #expect(response.headers[.wwwAuthenticate] != nil) }
                    }
                }
            }
            #expect(!capture.detailedLines.isEmpty, "the refusals were logged")
            for line in capture.detailedLines {
                #expect(!line.contains(F.gameKey) && !line.contains(F.otherKey) && !line.contains("iapk_not-a-key"))
            }
        }
    }
}
