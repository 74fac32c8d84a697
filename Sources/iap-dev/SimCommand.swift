import AppStoreSimulator
import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// `iap-dev sim`: runs the App Store simulator alone until SIGINT/SIGTERM.
///
/// Prints one JSON line once it listens, e.g.
/// `{"simulator":"http://127.0.0.1:54321","production":"http://127.0.0.1:54321/production",
/// "sandbox":"http://127.0.0.1:54321/sandbox","rootCertificate":"/path/root.pem","bundleId":"com.example.game"}`
struct SimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Run the local App Store simulator (Server API, verifyReceipt, notifications, faults)."
    )

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free one (printed in the ready line).")
    var port = 0

    @Option(name: .customLong("state-dir"), help: "Directory keeping the CA (and root.pem) across restarts.")
    var stateDirectory: String?

    @Option(name: .customLong("root-path"), help: "Where to write the root certificate PEM.")
    var rootPath: String?

    @Option(
        name: .customLong("leaf-validity"),
        help: "Lifetime in seconds of the JWS signing leaf (short values test expired chains)."
    )
    var leafValiditySeconds = 2 * 365 * 86_400

    @Option(name: .customLong("notify-url"), help: "URL receiving App Store Server Notifications V2.")
    var notifyURL: String?

    @Option(
        name: .customLong("retry-time-scale"),
        help: "Multiplier for Apple's retry delays (1, 12, 24, 48, 72 h); 0.000278 makes an hour a second."
    )
    var retryTimeScale = 1.0

    @Option(name: .customLong("bundle-id"), help: "Bundle id of purchases that don't name one.")
    var bundleId = "com.example.game"

    @Option(
        name: .customLong("fault-rate"),
        help: "Probability (0...1) of a fault on Server API and verifyReceipt requests.")
    var faultRate = 0.0

    @Option(name: .customLong("fault-kinds"), help: "Comma-separated: 5000001,4040002,429,21100,21005,timeout,html.")
    var faultKinds = ""

    @Option(name: .customLong("latency-ms"), help: "Latency added to Server API and verifyReceipt responses.")
    var latencyMs = 0

    @Option(
        name: .customLong("retry-after-ms"),
        help: "Milliseconds a 429 fault asks callers to wait (its Retry-After, sent as a UNIX time in ms).")
    var retryAfterMs = FaultConfiguration.defaultRetryAfterMs

    @Option(
        name: .customLong("drop-notifications"),
        help:
            "Probability (0...1) that a notification never reaches the notify URL: every attempt fails, and history shows it failed."
    )
    var dropNotifications = 0.0

    @Option(
        name: .customLong("api-key-file"),
        help:
            "In-App Purchase .p8 key whose tokens are accepted; created if missing. Without it any well-formed token is accepted."
    )
    var apiKeyFile: String?

    @Option(name: .customLong("key-id"), help: "Key id (kid) tokens signed with --api-key-file must carry.")
    var keyId = "SIMULATOR1"

    @Option(
        name: .customLong("issuer-id"),
        help: "Issuer id (iss) tokens signed with --api-key-file must carry; without it any issuer is accepted.")
    var issuerId: String?

    @Flag(
        name: .customLong("generate-only"),
        help: "Write the CA (into --state-dir), the root PEM and the --api-key-file, then exit without serving."
    )
    var generateOnly = false

    @Option(name: .customLong("shared-secret"), help: "verifyReceipt password required for subscription receipts.")
    var sharedSecret: String?

    func run() async throws {
        var logger = Logger(label: "iap.sim")
        logger.logLevel = .info
        let kinds = try faultKinds.split(separator: ",").map {
            try FaultKind(String($0.trimmingCharacters(in: .whitespaces)))
        }
        let apiKeys =
            try apiKeyFile.map { [try ServerAPIKey.loadOrCreateP8(keyId: keyId, issuerId: issuerId, path: $0)] } ?? []
        let simulator = try AppStoreSimulatorServer(
            configuration: .init(
                host: host, port: port, stateDirectory: stateDirectory, rootCertificatePath: rootPath,
                leafValidity: .seconds(leafValiditySeconds), bundleId: bundleId, notifyURL: notifyURL,
                retryTimeScale: retryTimeScale,
                faults: FaultConfiguration(
                    rate: faultRate, kinds: kinds, latencyMs: latencyMs, retryAfterMs: retryAfterMs,
                    dropNotificationRate: dropNotifications),
                apiKeys: apiKeys, sharedSecret: sharedSecret
            ),
            logger: logger
        )
        if generateOnly {
            // Credentials for a deployment that cannot share a volume with the simulator
            // (Kubernetes, decision D27): the CA and key are made once and handed out as Secrets.
            print("generated: root \(simulator.rootCertificatePath), key \(apiKeyFile ?? "none")")
            return
        }
        let group = ServiceGroup(
            configuration: .init(services: [simulator], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let url = try await simulator.baseURL()
            let ready: [String: String] = [
                "simulator": url, "production": "\(url)/production", "sandbox": "\(url)/sandbox",
                "rootCertificate": simulator.rootCertificatePath, "bundleId": bundleId,
            ]
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Unbuffered, so a parent process reading the pipe sees the line at once.
            FileHandle.standardOutput.write(try encoder.encode(ready) + Data("\n".utf8))
            try await tasks.waitForAll()
        }
    }
}
