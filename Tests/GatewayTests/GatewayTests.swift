import AppStoreModels
import AsyncHTTPClient
import Foundation
import Hosting
import Kafka
import LocalServices
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

@testable import Gateway

/// The gateway over real TCP against librdkafka's mock cluster (the real Kafka protocol).
@Suite(.timeLimit(.minutes(3))) struct GatewayTests {
    @Test func validNotificationIsAnsweredOnlyAfterItIsOnTheTopic() async throws {
        try await GatewayHarness.withGateway { gateway in
            let uuid = UUID().uuidString.lowercased()
            let signedPayload = try TestJWS.notification(uuid: uuid)
            let before = Date()
            let answer = try await GatewayHarness.post(gateway.notificationsURL, signedPayload: signedPayload)
            let after = Date()
            #expect(answer.status == 200)
            // Acknowledged means on the log already: the high watermark counts it at the 200.
            #expect(try await GatewayHarness.recordCount(gateway) == 1)

            let record = try #require(try await GatewayHarness.readRecords(gateway, count: 1).first)
            #expect(record.topic == gateway.topic)
            #expect(record.key.map(Array.init) == Array(uuid.utf8))
            let value = try #require(try JSONSerialization.jsonObject(with: Data(record.value)) as? [String: Any])
            #expect(value["schema"] as? String == "iap.notification.v1")
            #expect(value["signedPayload"] as? String == signedPayload)
            let receivedAt = try #require(value["receivedAt"] as? String)
            // Milliseconds like every pipeline timestamp (decision D22; whole seconds before).
            #expect(
                receivedAt.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil,
                "ISO-8601 UTC: \(receivedAt)")
            let instant = try #require(Timestamp(iso8601: receivedAt)).date
            #expect(instant >= before.addingTimeInterval(-1) && instant <= after.addingTimeInterval(1))
            #expect(Set(value.keys) == ["schema", "receivedAt", "signedPayload"])

            #expect(try await GatewayHarness.get(gateway.ops + "/healthz").status == 200)
            let metrics = try await GatewayHarness.get(gateway.ops + "/metrics").body
            #expect(metrics.contains(#"iap_gateway_requests_total{status="200"} 1"#))
            #expect(metrics.contains(#"iap_gateway_kafka_write_seconds_count{outcome="acknowledged"} 1"#))
            // Every family the gateway serves has its help (decision D28), and the process metrics.
            #expect(MetricHelp.familiesWithoutHelp(metrics) == [], "families without # HELP")
            #expect(metrics.contains("# TYPE process_start_time_seconds gauge"))
            #expect(metrics.contains("# TYPE iap_build_info gauge"))
            #expect(metrics.contains(#"iap_ready{process="iap-gateway"}"#))
        }
    }

    /// The request's `traceparent` is continued on the record (a span of the gateway's own under
    /// the caller's trace); a request without one, or with a malformed one, starts a trace
    /// (decision D42).
    @Test func theRecordContinuesTheRequestsTraceOrStartsOne() async throws {
        try await GatewayHarness.withGateway { gateway in
            let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            let requests: [[(String, String)]] = [
                [("traceparent", caller), ("tracestate", "vendor=value")], [], [("traceparent", "00-not-a-trace-01")],
            ]
            for headers in requests {
                let answer = try await GatewayHarness.post(
                    gateway.notificationsURL, signedPayload: try TestJWS.notification(uuid: UUID().uuidString),
                    headers: headers)
                #expect(answer.status == 200)
            }
            let records = try await GatewayHarness.readRecords(gateway, count: 3)
            let traceparents = records.map { $0.headers.last(named: "traceparent")?.stringValue ?? "" }
            let traceIds = traceparents.map { $0.split(separator: "-").dropFirst().first.map(String.init) ?? "" }
            #expect(traceparents.allSatisfy { $0.count == 55 && $0.hasPrefix("00-") }, "\(traceparents)")
            #expect(Set(traceIds).count == 3, "one trace per request: \(traceparents)")
            let continued = try #require(records.firstIndex { $0.headers.last(named: "tracestate") != nil })
            #expect(traceIds[continued] == "4bf92f3577b34da6a3ce929d0e0e4736")
            #expect(traceparents[continued] != caller, "the gateway's span, not the caller's")
            #expect(records[continued].headers.last(named: "tracestate")?.stringValue == "vendor=value")
        }
    }

    @Test func undecodablePayloadIsWrittenWithoutAKey() async throws {
        try await GatewayHarness.withGateway { gateway in
            let payloads = ["not-a-jws", "a.b.c", try TestJWS.make(payload: ["notificationType": "TEST"])]
            for payload in payloads {
                let answer = try await GatewayHarness.post(gateway.notificationsURL, signedPayload: payload)
                #expect(answer.status == 200, "\(payload)")
            }
            let records = try await GatewayHarness.readRecords(gateway, count: payloads.count)
            #expect(records.count == payloads.count)
            #expect(records.allSatisfy { $0.key == nil })
            let written = records.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.value)) as? [String: Any])?["signedPayload"] as? String
            }
            #expect(Set(written) == Set(payloads))
            let metrics = try await GatewayHarness.get(gateway.ops + "/metrics").body
            #expect(metrics.contains("iap_gateway_unkeyed_notifications_total 3"))
        }
    }

    @Test func malformedBodiesAreRefusedAndNothingIsWritten() async throws {
        let oversized =
            Array(#"{"signedPayload": ""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 1 << 20)
            + Array(#""}"#.utf8)
        let cases: [(name: String, body: [UInt8], chunked: Bool, detail: String)] = [
            ("empty body", [], false, "empty body"),
            ("not JSON", Array(#"{"signedPayload": "#.utf8), false, "not JSON"),
            ("JSON array", Array(#"["a.b.c"]"#.utf8), false, "not a JSON object"),
            ("missing field", Array(#"{"payload": "a.b.c"}"#.utf8), false, "missing"),
            ("null field", Array(#"{"signedPayload": null}"#.utf8), false, "missing"),
            ("number", Array(#"{"signedPayload": 42}"#.utf8), false, "not a string"),
            ("empty string", Array(#"{"signedPayload": ""}"#.utf8), false, "empty"),
            ("blank string", Array(#"{"signedPayload": "  "}"#.utf8), false, "empty"),
            ("over 1 MiB, declared", oversized, false, "exceeds"),
            ("over 1 MiB, chunked", oversized, true, "exceeds"),
        ]
        try await GatewayHarness.withGateway { gateway in
            for test in cases {
                let answer = try await GatewayHarness.post(
                    gateway.notificationsURL, body: test.body, chunked: test.chunked)
                #expect(answer.status == 400, "\(test.name)")
                #expect(answer.headers.first(name: "Content-Type") == "application/json", "\(test.name)")
                #expect(answer.json["reason"] == "malformed_event", "\(test.name): \(answer.body)")
                #expect(answer.json["detail"]?.contains(test.detail) == true, "\(test.name): \(answer.body)")
            }
            #expect(try await GatewayHarness.recordCount(gateway) == 0)

            // The same gateway does write a valid notification: the zero above is not a broken pipe.
            let answer = try await GatewayHarness.post(
                gateway.notificationsURL, signedPayload: try TestJWS.notification(uuid: "after-refusals"))
            #expect(answer.status == 200)
            #expect(try await GatewayHarness.recordCount(gateway) == 1)
            let metrics = try await GatewayHarness.get(gateway.ops + "/metrics").body
            #expect(metrics.contains(#"iap_gateway_requests_total{status="400"} \#(cases.count)"#))
        }
    }

    @Test func brokerDownAnswers503WithinTheWriteTimeoutAndRecovers() async throws {
        // Its broker goes down: a cluster of its own, not the one other tests share. The other
        // tests keep the default write timeout (10 s): a loaded machine can take 2 s to write.
        let shortWrites: (inout GatewaySettings) -> Void = { $0.writeTimeout = .seconds(2) }
        try await GatewayHarness.withGateway(privateCluster: true, configure: shortWrites) { gateway in
            let first = try await GatewayHarness.post(
                gateway.notificationsURL, signedPayload: try TestJWS.notification(uuid: "before-outage"))
            #expect(first.status == 200)

            try await gateway.cluster.setBrokerDown(1)
            let started = ContinuousClock.now
            let answer = try await GatewayHarness.post(
                gateway.notificationsURL, signedPayload: try TestJWS.notification(uuid: "during-outage"))
            let elapsed = ContinuousClock.now - started
            #expect(answer.status == 503, "must not claim success while Kafka is down: \(answer.body)")
            #expect(answer.json["reason"] == "kafka_unavailable")
            // Write timeout 2 s (+0.5 s backstop); the HTTP client itself would wait 30 s. The bound
            // only tells the two apart: a loaded CI machine answered after 6.6 s.
            #expect(elapsed < .seconds(15), "answered after \(elapsed)")
            _ = try await eventually("readyz reports the outage") {
                try await GatewayHarness.get(gateway.ops + "/readyz").status == 503 ? true : nil
            }

            try await gateway.cluster.setBrokerUp(1)
            _ = try await eventually("writes succeed again", timeout: .seconds(60), every: .milliseconds(500)) {
                try await GatewayHarness.post(
                    gateway.notificationsURL, signedPayload: try TestJWS.notification(uuid: "after-outage")
                ).status == 200 ? true : nil
            }
            // The probe runs every 5 s on an admin client with its own reconnect backoff.
            _ = try await eventually("ready again", timeout: .seconds(60), every: .milliseconds(500)) {
                try await GatewayHarness.get(gateway.ops + "/readyz").status == 200 ? true : nil
            }
            let metrics = try await GatewayHarness.get(gateway.ops + "/metrics").body
            #expect(metrics.contains(#"iap_gateway_requests_total{status="503"}"#))
            #expect(metrics.contains(#"iap_gateway_kafka_write_seconds_count{outcome="failed"}"#))
        }
    }

    @Test func otherPathsAndMethodsAreNotServed() async throws {
        try await GatewayHarness.withGateway { gateway in
            let get = try await GatewayHarness.get(gateway.notificationsURL)
            #expect(get.status == 404)
            let metrics = try await GatewayHarness.get(gateway.base + "/metrics")
            #expect(metrics.status == 404, "metrics stay on the ops port")
            #expect(try await GatewayHarness.recordCount(gateway) == 0)
            let counted = try await GatewayHarness.get(gateway.ops + "/metrics").body
            #expect(counted.contains(#"iap_gateway_requests_total{status="404"} 2"#))
        }
    }

    @Test func readinessWaitsForTheTopic() async throws {
        let kafka = try await TestKafka.shared(topics: ["other": 1])
        var settings = try GatewayHarness.settings(kafka.cluster)
        settings.topic = kafka.topic("missing-topic")
        let opsPort = Mutex<Int?>(nil)
        let gateway = try Gateway(
            settings: settings, logger: TestKafka.logger, onOpsListening: { port in opsPort.withLock { $0 = port } })
        let stop = AsyncStream<Void>.makeStream()
        let task = Task { try await gateway.run { for await _ in stop.stream { return } } }
        let ops = try await eventually("ops port") { opsPort.withLock { $0 }.map { "http://127.0.0.1:\($0)" } }
        let answer = try await eventually("a readiness verdict") { () -> HTTPAnswer? in
            let answer = try await GatewayHarness.get(ops + "/readyz")
            return answer.body.contains("starting") ? nil : answer
        }
        #expect(answer.status == 503)
        #expect(answer.body.contains(kafka.topic("missing-topic")))
        stop.continuation.finish()
        try await task.value
    }
}
