import AppStoreModels
import Contracts
import Foundation
import Kafka
import Pipeline
import Settings
import Testing
import Topology

@testable import Gateway

@Suite(.timeLimit(.minutes(2))) struct GatewaySettingsTests {
    @Test func defaults() throws {
        let settings = try GatewaySettings(environment: ["HOSTNAME": "gw-0"])
        #expect(settings.kafka.bootstrapServers == "127.0.0.1:9092")
        #expect(settings.host == "0.0.0.0")
        #expect(settings.port == 8080)
        #expect(settings.opsPort == 9100)
        #expect(settings.pipelinePath == "pipelines/iap.yaml")
        #expect(settings.topic == nil)
        #expect(settings.writeTimeout == .seconds(10))
        #expect(settings.maxBodyBytes == 1 << 20)
        #expect(settings.tlsCertificatePath == nil)
        #expect(settings.clientId == "iap-gateway-gw-0")
    }

    @Test func environmentOverridesDefaults() throws {
        let settings = try GatewaySettings(environment: [
            "KAFKA_BROKERS": "k1:9092,k2:9092", "IAP_GATEWAY_HOST": "127.0.0.1", "IAP_GATEWAY_PORT": "8443",
            "IAP_PIPELINE": "/etc/iap/iap.yaml", "IAP_GATEWAY_TOPIC": "apple.notifications", "IAP_OPS_PORT": "9200",
            "IAP_GATEWAY_WRITE_TIMEOUT_SECONDS": "2.5", "IAP_GATEWAY_MAX_BODY_BYTES": "65536",
            "IAP_SHUTDOWN_GRACE_SECONDS": "12",
            "IAP_CLIENT_ID": "gw", "IAP_KAFKA_COMPRESSION_TYPE": "zstd",
        ])
        #expect(settings.kafka.bootstrapServers == "k1:9092,k2:9092")
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 8443)
        #expect(settings.pipelinePath == "/etc/iap/iap.yaml")
        #expect(settings.topic == "apple.notifications")
        #expect(settings.opsPort == 9200)
        #expect(settings.writeTimeout == .milliseconds(2500))
        #expect(settings.maxBodyBytes == 65536)
        #expect(settings.shutdownGracePeriod == .seconds(12))
        #expect(settings.clientId == "gw")
        #expect(settings.kafka.properties == ["compression.type": "zstd"])
    }

    @Test(arguments: [
        ["IAP_GATEWAY_PORT": "http"], ["IAP_GATEWAY_PORT": "70000"], ["IAP_OPS_PORT": "-1"],
        ["IAP_GATEWAY_WRITE_TIMEOUT_SECONDS": "0"], ["IAP_GATEWAY_MAX_BODY_BYTES": "lots"],
    ])
    func malformedValuesFailStartUp(environment: [String: String]) {
        #expect(throws: SettingsError.self) { try GatewaySettings(environment: environment) }
    }

    @Test func topicComesFromTheRepositoryPipelineFile() throws {
        var settings = try GatewaySettings(environment: [:])
        settings.pipelinePath =
            URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("pipelines/iap.yaml").path
        #expect(try settings.notificationsTopic() == "iap.notifications")
    }

    @Test func anOverrideIsUsedWithoutReadingThePipelineFile() throws {
        var settings = try GatewaySettings(environment: ["IAP_GATEWAY_TOPIC": "apple.notifications"])
        settings.pipelinePath = "/nonexistent/iap.yaml"
        #expect(try settings.notificationsTopic() == "apple.notifications")
        settings.topic = nil
        #expect(throws: (any Error).self) { try settings.notificationsTopic() }
    }

    @Test func aPipelineFileWithoutTheTopicIsRefused() throws {
        let file = try PipelineFile(topics: [TopicSpec(name: "iap.purchases", partitions: 3)], stages: [])
        #expect(throws: SettingsError.self) { try GatewaySettings.notificationsTopic(in: file) }
    }
}

@Suite(.timeLimit(.minutes(2))) struct NotificationEventTests {
    @Test func keyIsTheUnverifiedNotificationUUID() throws {
        #expect(
            NotificationEvent.key(forSignedPayload: try TestJWS.notification(uuid: "0f5e2a1c-uuid")) == "0f5e2a1c-uuid")
    }

    @Test(arguments: ["", "not-a-jws", "a.b.c", "a.b", "x.y.z.w"])
    func noKeyForTextThatIsNotAJWS(text: String) {
        #expect(NotificationEvent.key(forSignedPayload: text) == nil)
    }

    @Test func noKeyWithoutAUsableUUID() throws {
        #expect(NotificationEvent.key(forSignedPayload: try TestJWS.make(payload: ["notificationType": "TEST"])) == nil)
        #expect(NotificationEvent.key(forSignedPayload: try TestJWS.make(payload: ["notificationUUID": 42])) == nil)
        #expect(NotificationEvent.key(forSignedPayload: try TestJWS.make(payload: ["notificationUUID": ""])) == nil)
        #expect(
            NotificationEvent.key(
                forSignedPayload: try TestJWS.make(payload: ["notificationUUID": String(repeating: "u", count: 129)]))
                == nil)
    }

    @Test func otherFieldsDoNotStopTheKey() throws {
        // A notification type the models have never seen and a date in an odd shape.
        let jws = try TestJWS.make(payload: [
            "notificationUUID": "u-1", "notificationType": "SOMETHING_NEW", "signedDate": "yesterday",
        ])
        #expect(NotificationEvent.key(forSignedPayload: jws) == "u-1")
    }

    @Test func eventEncodesTheContractShape() throws {
        let event = NotificationEvent(
            receivedAt: Timestamp(Date(timeIntervalSince1970: 1_795_294_800.75)), signedPayload: "h.p/+.s")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(EventEncoder.encode(event))) as? [String: String])
        #expect(
            object == [
                "schema": "iap.notification.v1", "receivedAt": "2026-11-21T21:00:00.750Z", "signedPayload": "h.p/+.s",
            ])
    }

    /// The record value byte for byte (wire-format golden; see WireFormatGoldenTests).
    ///
    /// Changed on purpose when the gateway's own copy of the event gave way to the one in
    /// `Contracts` (decision D22): `receivedAt` was whole seconds (`…T21:00:00Z`, the fraction
    /// dropped) and is now milliseconds like every other timestamp of the pipeline
    /// (`…T21:00:00.750Z`). Intake, the only reader, parses both.
    @Test func eventEncodesToTheGoldenBytes() throws {
        let event = NotificationEvent(
            receivedAt: Timestamp(Date(timeIntervalSince1970: 1_795_294_800.75)), signedPayload: "h.p/+.s")
        #expect(
            String(decoding: try EventEncoder.encode(event), as: UTF8.self)
                == #"{"receivedAt":"2026-11-21T21:00:00.750Z","schema":"iap.notification.v1","signedPayload":"h.p/+.s"}"#
        )
    }
}

@Suite(.timeLimit(.minutes(2))) struct NotificationBodyTests {
    @Test func extraFieldsAreIgnored() throws {
        let payload = try NotificationBody.signedPayload(from: Array(#"{"signedPayload": "a.b.c", "other": 1}"#.utf8))
        #expect(payload == "a.b.c")
    }

    @Test(arguments: [
        ("", "empty body"), ("nope", "not JSON"), ("42", "not a JSON object"),
        (#"{"signedPayload": ["a"]}"#, "not a string"),
        (#"{"signedPayload": "\n"}"#, "empty"),
    ])
    func refusals(body: String, detail: String) {
        let error = #expect(throws: MalformedNotification.self) {
            try NotificationBody.signedPayload(from: Array(body.utf8))
        }
        #expect(error?.detail.contains(detail) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("malformed_event: ") == true)
    }
}
