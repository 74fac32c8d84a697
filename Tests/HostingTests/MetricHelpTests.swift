import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Prometheus
import Testing

@testable import Hosting

@Suite struct MetricHelpTests {
    @Test func annotateAddsTheCatalogsHelpToFamiliesWithoutOne() {
        let text = """
            # TYPE iap_stage_in_flight gauge
            iap_stage_in_flight{stage="verify"} 3
            # HELP own_family my own help
            # TYPE own_family counter
            own_family 1
            # TYPE unknown_family counter
            unknown_family 2

            """
        let annotated = String(decoding: MetricHelp.annotate(Array(text.utf8)), as: UTF8.self)
        #expect(
            annotated == """
                # HELP iap_stage_in_flight \(MetricHelp.catalog["iap_stage_in_flight"]!)
                # TYPE iap_stage_in_flight gauge
                iap_stage_in_flight{stage="verify"} 3
                # HELP own_family my own help
                # TYPE own_family counter
                own_family 1
                # TYPE unknown_family counter
                unknown_family 2

                """)
        #expect(MetricHelp.familiesWithoutHelp(annotated) == ["unknown_family"])
    }

    @Test func theOpsServerServesProcessAndBuildMetricsWithHelp() async throws {
        let registry = PrometheusCollectorRegistry()
        // As PrometheusMetricsFactory registers it: no help text.
        _ = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "iap", subsystem: "stage", metricName: "messages", unitName: "total", helpText: ""),
            labels: [("stage", "x"), ("outcome", "produced")])
        let readiness = ReadinessFlag(.ready)
        let server = OpsServer(
            host: "127.0.0.1", port: 0, registry: registry, readiness: readiness.check, process: "ops-test")
        try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(MetricHelp.familiesWithoutHelp(text) == [])
                #expect(text.contains("# HELP iap_stage_messages_total "))
                #expect(text.contains(#"iap_build_info{version="\#(BuildInfo.version)",revision="unknown",swift=""#))
                #expect(text.contains(#"process="ops-test"} 1.0"#))
                #expect(text.contains(#"iap_ready{process="ops-test"} 1.0"#))
                let start = try #require(Self.value(of: "process_start_time_seconds", in: text))
                let now = Date().timeIntervalSince1970
                #expect(start > now - 86_400 * 30 && start <= now + 1, "started \(now - start) s ago")
                #if os(Linux)
                #expect(try #require(Self.value(of: "process_resident_memory_bytes", in: text)) > 1_000_000)
                #expect(try #require(Self.value(of: "process_cpu_seconds_total", in: text)) > 0)
                #expect(try #require(Self.value(of: "process_open_fds", in: text)) > 2)
                #expect(try #require(Self.value(of: "process_max_fds", in: text)) >= 256)
                #endif
            }
            readiness.set(.notReady(reason: "draining"))
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(String(buffer: response.body).contains(#"iap_ready{process="ops-test"} 0.0"#))
                #expect(Self.value(of: "iap_ready", in: String(buffer: response.body)) == 0)
            }
        }
    }

    /// The value of the first sample of `family` (any labels).
    static func value(of family: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(family + " ") || $0.hasPrefix(family + "{") }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }
}
