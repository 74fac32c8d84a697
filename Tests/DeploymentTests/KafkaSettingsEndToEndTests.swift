import Foundation
import Testing

/// Every `iap` subcommand that reaches the cluster and every executable hands the same
/// `IAP_KAFKA_*` properties to librdkafka, from the environment and from `IAP_CONFIG_FILE` alike
/// (decision D38). librdkafka's mock cluster speaks no SASL or TLS, so the check is librdkafka's
/// own: with `security.protocol=SASL_SSL` it loads `ssl.ca.location` when the client is made,
/// and a file that does not exist stops the command with that error. A command that built its
/// client from `KAFKA_BROKERS` alone would instead connect (or time out) without a word of TLS.
@Suite(.timeLimit(.minutes(5)))
struct KafkaSettingsEndToEndTests {
    static let missingCA = "/nonexistent/iap-test-kafka-ca.pem"

    /// What an operator of a managed cluster (SCRAM over TLS, the cluster's CA) sets.
    static let managedKafka = [
        "IAP_KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "IAP_KAFKA_SASL_MECHANISMS": "SCRAM-SHA-512",
        "IAP_KAFKA_SASL_USERNAME": "iap", "IAP_KAFKA_SASL_PASSWORD": "s3cret", "IAP_KAFKA_SSL_CA_LOCATION": missingCA,
    ]

    enum Source: String, CaseIterable { case environment, settingsFile }

    @Test(arguments: Source.allCases)
    func everyCommandHandsTheSecuritySettingsToLibrdkafka(_ source: Source) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "iap-kafka-settings-\(UUID().uuidString.prefix(6))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let binaries = ProcessInfo.processInfo.environment["IAP_BIN_DIR"] ?? DeploymentFiles.path(".build/debug")
        let pipeline = DeploymentFiles.path("pipelines/iap.yaml")

        // Verify and reconcile read Apple's key before they make a Kafka client.
        let (generated, log) = try await Tools.run(
            binaries + "/iap-dev",
            ["sim", "--generate-only", "--state-dir", directory + "/sim", "--api-key-file", directory + "/AuthKey.p8"])
        #expect(generated == 0, "\(log)")
        var environment = [
            "PATH": "/usr/bin:/bin", "KAFKA_BROKERS": "kafka.invalid:9092", "REDIS_URL": "redis://127.0.0.1:1",
            "IAP_PIPELINE": pipeline, "IAP_OPS_PORT": "0", "IAP_BUNDLE_ID": "com.example.game",
            "IAP_APP_APPLE_ID": "1234567890",
            "IAP_APPLE_KEY_ID": "SIMULATOR1", "IAP_APPLE_ISSUER_ID": "simulator-issuer",
            "IAP_APPLE_PRIVATE_KEY_PATH": directory + "/AuthKey.p8", "IAP_SHUTDOWN_GRACE_SECONDS": "1",
        ]
        switch source {
        case .environment:
            environment.merge(Self.managedKafka) { _, new in new }
        case .settingsFile:
            let file = directory + "/iap.env"
            try Self.managedKafka.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
                .write(toFile: file, atomically: true, encoding: .utf8)
            environment["IAP_CONFIG_FILE"] = file
        }

        let commands: [[String]] = [
            ["iap", "topics", "create", "--pipeline", pipeline],
            ["iap", "dlq", "list"],
            ["iap", "dlq", "replay", "--topic", "iap.verify.dlq"],
            ["iap", "orders", "rebuild"],
            [
                "iap", "publish", "purchase", "--user", "u-1", "--bundle-id", "com.example.game", "--transaction-id",
                "1",
            ],
            ["iap", "publish", "order", "--order-id", "o-1", "--user", "u-1", "--product-id", "p", "--bundle-id", "b"],
            ["iap", "lag"],
            ["iap", "lag", "--pipeline", pipeline],
            ["iap", "lag", "--serve"],
            ["iap", "config", "check", "--stage", "intake"],
            ["iap", "reconcile", "--json"],
            // Its Kafka reader is made before Apple is asked for anything.
            ["iap", "notifications", "test", "--timeout", "5"],
            ["iap-intake"], ["iap-verify"], ["iap-match"], ["iap-grant"], ["iap-state"], ["iap-confirm"],
            ["iap-reconcile"],
            ["iap-gateway"],
        ]
        for command in commands {
            let (code, output) = try await Tools.run(
                binaries + "/" + command[0], Array(command.dropFirst()), environment: environment,
                timeout: .seconds(60))
            #expect(code != 0, "\(command.joined(separator: " ")) succeeded without its CA file:\n\(output)")
            #expect(
                output.contains("ssl.ca.location"),
                "\(command.joined(separator: " ")) (\(source)) did not hand IAP_KAFKA_* to librdkafka:\n\(output)")
            #expect(!output.contains("s3cret"), "\(command.joined(separator: " ")) printed the SASL password")
        }
    }
}
