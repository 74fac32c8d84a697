import AsyncHTTPClient
import Foundation
import Hosting
import Kafka
import LocalServices
import NIOCore
import NIOHTTP1
import Synchronization
import TestSupport

@testable import Gateway

/// A gateway running in the test process against a mock cluster, over real TCP on loopback.
struct RunningGateway {
    let gateway: Gateway
    let cluster: KafkaMockCluster
    /// `http://127.0.0.1:<port>` (or `https://`) of the notification listener.
    let base: String
    /// `http://127.0.0.1:<port>` of the ops listener.
    let ops: String
    let topic: String

    var notificationsURL: String { base + NotificationServer.path }
}

struct HTTPAnswer {
    let status: UInt
    let headers: HTTPHeaders
    let body: String

    /// The JSON object of the body, or an empty one.
    var json: [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: String] ?? [:]
    }
}

enum GatewayHarness {
    static let topic = "iap.notifications"

    static func settings(_ cluster: KafkaMockCluster) throws -> GatewaySettings {
        var settings = try GatewaySettings(environment: [:])
        settings.kafka.bootstrapServers = cluster.bootstrapServers
        settings.host = "127.0.0.1"
        settings.port = 0
        settings.opsHost = "127.0.0.1"
        settings.opsPort = 0
        settings.topic = topic
        settings.shutdownGracePeriod = .seconds(15)
        return settings
    }

    /// Creates the notifications topic (under a name of the test's own on the shared mock
    /// cluster, or on a cluster of its own with `privateCluster`, for tests that take its broker
    /// down) and starts a gateway in front of it, waits until `/readyz` says ready, runs `body`,
    /// then shuts the gateway down gracefully (the shutdown itself must succeed: a hang or an
    /// error fails the test).
    static func withGateway<Result>(
        partitions: Int32 = 6, privateCluster: Bool = false,
        configure: (inout GatewaySettings) throws -> Void = { _ in },
        _ body: (RunningGateway) async throws -> Result
    ) async throws -> Result {
        let kafka =
            await privateCluster
            ? SharedKafka(cluster: try TestKafka.cluster(topics: [Self.topic: partitions]))
            : try TestKafka.shared(topics: [Self.topic: partitions])
        let cluster = kafka.cluster
        let topic = kafka.topic(Self.topic)
        var settings = try settings(cluster)
        settings.topic = topic
        try configure(&settings)
        let ports = Mutex<(http: Int?, ops: Int?)>((nil, nil))
        let gateway = try Gateway(
            settings: settings, logger: TestKafka.logger,
            onListening: { port in ports.withLock { $0.http = port } },
            onOpsListening: { port in ports.withLock { $0.ops = port } }
        )
        let stop = AsyncStream<Void>.makeStream()
        let task = Task { try await gateway.run { for await _ in stop.stream { return } } }

        let result: Result
        do {
            let (http, ops) = try await eventually("gateway ports") { () -> (Int, Int)? in
                let bound = ports.withLock { $0 }
                guard let http = bound.http, let ops = bound.ops else { return nil }
                return (http, ops)
            }
            let scheme = settings.tlsCertificatePath == nil ? "http" : "https"
            let running = RunningGateway(
                gateway: gateway, cluster: cluster, base: "\(scheme)://127.0.0.1:\(http)",
                ops: "http://127.0.0.1:\(ops)", topic: topic
            )
            _ = try await eventually("gateway ready") {
                try await get(running.ops + "/readyz").status == 200 ? true : nil
            }
            result = try await body(running)
        } catch {
            stop.continuation.finish()
            _ = try? await task.value
            throw error
        }
        stop.continuation.finish()
        try await task.value
        return result
    }

    static func get(_ url: String, client: HTTPClient = .shared) async throws -> HTTPAnswer {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 4 << 20)
        return HTTPAnswer(status: response.status.code, headers: response.headers, body: String(buffer: body))
    }

    /// POSTs `body` with a Content-Length, or chunked when `chunked` is set.
    static func post(
        _ url: String, body: [UInt8], chunked: Bool = false, headers: [(String, String)] = [],
        client: HTTPClient = .shared
    ) async throws -> HTTPAnswer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(contentsOf: headers)
        if chunked {
            let pieces = stride(from: 0, to: body.count, by: 64 * 1024).map {
                ByteBuffer(bytes: body[$0..<min($0 + 64 * 1024, body.count)])
            }
            let stream = AsyncStream<ByteBuffer> { continuation in
                for piece in pieces { continuation.yield(piece) }
                continuation.finish()
            }
            request.body = .stream(stream, length: .unknown)
        } else {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let collected = try await response.body.collect(upTo: 4 << 20)
        return HTTPAnswer(status: response.status.code, headers: response.headers, body: String(buffer: collected))
    }

    static func post(
        _ url: String, signedPayload: String, headers: [(String, String)] = [], client: HTTPClient = .shared
    ) async throws -> HTTPAnswer {
        let body = try JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
        return try await post(url, body: Array(body), headers: headers, client: client)
    }

    /// Records on the gateway's topic across all partitions: the sum of high watermarks.
    static func recordCount(_ gateway: RunningGateway, partitions: Int32 = 6) async throws -> Int64 {
        let admin = try KafkaAdmin(bootstrapServers: gateway.cluster.bootstrapServers, logger: TestKafka.logger)
        let watermarks = try await admin.highWatermarks((0..<partitions).map { TopicPartition(gateway.topic, $0) })
        return watermarks.values.reduce(0, +)
    }

    /// Reads `count` records of the gateway's topic with a fresh consumer group.
    static func readRecords(_ gateway: RunningGateway, count: Int) async throws -> [KafkaMessage] {
        let consumer = try KafkaConsumer(
            configuration: TestKafka.consumerConfiguration(
                gateway.cluster, group: "reader-\(UUID().uuidString)", topics: [gateway.topic]),
            logger: TestKafka.logger
        )
        let probe = ConsumerProbe(consumer)
        do {
            let messages = try await probe.waitForMessages(count)
            await probe.close()
            return messages
        } catch {
            await probe.close()
            throw error
        }
    }
}

/// Compact JWS text in Apple's shape (header with alg and x5c, payload, signature), unsigned:
/// the gateway only ever decodes it unverified.
enum TestJWS {
    static func make(payload: [String: Any]) throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "x5c": ["AAAA"]])
        let body = try JSONSerialization.data(withJSONObject: payload)
        return [header, body, Data([1, 2, 3, 4])].map(base64URL).joined(separator: ".")
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func notification(uuid: String) throws -> String {
        try make(payload: [
            "notificationType": "DID_RENEW", "notificationUUID": uuid, "version": "2.0",
            "signedDate": 1_763_760_000_000,
            "data": ["bundleId": "com.example.game", "environment": "Sandbox", "signedTransactionInfo": "a.b.c"],
        ])
    }
}
