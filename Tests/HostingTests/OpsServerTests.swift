import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import Testing

@testable import Hosting

@Suite(.timeLimit(.minutes(2))) struct OpsServerTests {
    let registry = PrometheusCollectorRegistry()
    let readiness = ReadinessFlag()

    func server(port: Int = 0, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> OpsServer {
        OpsServer(
            host: "127.0.0.1", port: port, registry: registry, readiness: readiness.check, onListening: onListening)
    }

    @Test func metricsServesTheRegistryAsPrometheusText() async throws {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "iap", subsystem: "test", metricName: "events", unitName: "total", helpText: "test events")
        )
        .increment(by: Int64(3))
        try await server().makeApplication().test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
                #expect(String(buffer: response.body).contains("iap_test_events_total 3"))
            }
        }
    }

    @Test func healthzIsAlwaysOK() async throws {
        try await server().makeApplication().test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func readyzFollowsTheReadinessCheck() async throws {
        readiness.set(.notReady(reason: "partitions not assigned"))
        try await server().makeApplication().test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("partitions not assigned"))
            }
            readiness.set(.ready)
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func servesOnALivePort() async throws {
        readiness.set(.ready)
        try await server().makeApplication().test(.live) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func reportsTheEphemeralPortAndStopsOnGracefulShutdown() async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [server { continuation.yield($0) }], logger: Logger(label: "test"))
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            #expect(port > 0)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
