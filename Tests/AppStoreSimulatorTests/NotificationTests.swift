import AppStoreSimulator
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing

/// Records notification POSTs and fails the first `failures` of them with HTTP 500.
private actor Listener {
    private(set) var bodies: [String] = []
    let failures: Int

    init(failures: Int) { self.failures = failures }

    func receive(_ body: String) -> HTTPResponse.Status {
        bodies.append(body)
        return bodies.count <= failures ? .internalServerError : .ok
    }
}

/// Runs a local notification receiver and a simulator posting to it.
private func withListener(
    failures: Int,
    _ body: (SimulatorClient, Listener) async throws -> Void
) async throws {
    let listener = Listener(failures: failures)
    let router = Router()
    router.post("notify") { request, _ -> Response in
        var request = request
        let bytes = try await request.collectBody(upTo: 1 << 20)
        return Response(status: await listener.receive(String(buffer: bytes)))
    }
    let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: "test.listener")
    logger.logLevel = .critical
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { portContinuation.yield($0.localAddress?.port ?? 0) }, logger: logger
    )
    let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var ports = portStream.makeAsyncIterator()
        let port = try #require(await ports.next())
        do {
            let configuration = AppStoreSimulatorConfiguration(
                notifyURL: "http://127.0.0.1:\(port)/notify", retryTimeScale: 1e-6
            )
            try await withSimulator(configuration) { client in try await body(client, listener) }
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

/// Waits (without asserting on time) until `condition` holds or a generous bound passes.
private func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
    for _ in 0..<400 {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return false
}

@Suite("Notifications", .timeLimit(.minutes(2)))
struct NotificationTests {
    @Test("every lifecycle change is POSTed as {signedPayload}")
    func lifecycle() async throws {
        try await withListener(failures: 0) { client, listener in
            let original = try await client.purchase(type: "Auto-Renewable Subscription").string(
                "originalTransactionId")
            let renewal = try await client.request(.POST, "/sim/v1/subscriptions/\(original)/renew")
            _ = try await client.request(.POST, "/sim/v1/subscriptions/\(original)/expire")
            _ = try await client.request(.POST, "/sim/v1/transactions/\(try renewal.string("transactionId"))/refund")
            let consumable = try await client.purchase().string("transactionId")
            _ = try await client.request(.POST, "/sim/v1/transactions/\(consumable)/refund")

            #expect(try await eventually { await listener.bodies.count >= 6 })
            let types = try await listener.bodies.map { body -> String in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
                #expect(Set(object.keys) == ["signedPayload"])
                return try jwsPayload(object["signedPayload"] as? String ?? "")["notificationType"] as? String ?? ""
            }
            #expect(Set(types) == ["SUBSCRIBED", "DID_RENEW", "EXPIRED", "REFUND", "ONE_TIME_CHARGE"])
            #expect(types.filter { $0 == "REFUND" }.count == 2)
        }
    }

    @Test("failed deliveries are retried with the same notificationUUID and recorded in history")
    func retries() async throws {
        try await withListener(failures: 2) { client, listener in
            let purchase = try await client.purchase(type: "Auto-Renewable Subscription")
            let uuid = try jwsPayload(try purchase.string("signedPayload"))["notificationUUID"] as? String
            #expect(try await eventually { await listener.bodies.count >= 3 })
            let uuids = try await listener.bodies.map { body in
                let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
                return try jwsPayload(object?["signedPayload"] as? String ?? "")["notificationUUID"] as? String
            }
            #expect(uuids == [uuid, uuid, uuid])

            let now = Int(Date().timeIntervalSince1970 * 1000)
            var attempts: [[String: Any]] = []
            let recorded = try await eventually {
                let history = try await client.request(
                    .POST, "/sandbox/inApps/v1/notifications/history",
                    json: ["startDate": now - 60_000, "endDate": now + 60_000], token: try P256Key().token()
                )
                let item = (try history.json()["notificationHistory"] as? [[String: Any]])?.first
                attempts = item?["sendAttempts"] as? [[String: Any]] ?? []
                return attempts.count >= 3
            }
            #expect(recorded)
            #expect(
                attempts.map { $0["sendAttemptResult"] as? String } == [
                    "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS",
                ])
        }
    }
}
