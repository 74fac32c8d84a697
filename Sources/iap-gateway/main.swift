import ArgumentParser
import Catalog
import Foundation
import Gateway
import Hosting
import Kafka
import Logging
import Settings

/// `iap-gateway`: App Store Server Notifications V2 -> Kafka. Settings come from the settings
/// layer (environment, `IAP_CONFIG_FILE`, defaults; see `GatewaySettings`); a flag, when given,
/// wins over its key.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap-gateway",
        abstract: "Receive App Store Server Notifications V2 and write them to Kafka before answering 200.",
        discussion: """
            POST /apple/notifications {"signedPayload": "<JWS>"} -> iap.notification.v1 on the notifications topic.
            200 after Kafka acknowledged the write, 503 when it did not (Apple retries), 400 for a malformed body.
            Ops endpoints (/metrics, /healthz, /readyz) listen on the ops port.

            Environment: KAFKA_BROKERS, IAP_GATEWAY_HOST, IAP_GATEWAY_PORT, IAP_PIPELINE, IAP_GATEWAY_TOPIC, \
            IAP_OPS_HOST, IAP_OPS_PORT, IAP_GATEWAY_WRITE_TIMEOUT_SECONDS, IAP_GATEWAY_MAX_BODY_BYTES, \
            IAP_GATEWAY_TLS_CERTIFICATE, IAP_GATEWAY_TLS_KEY, IAP_SHUTDOWN_GRACE_SECONDS, IAP_CLIENT_ID, \
            IAP_KAFKA_<PROPERTY>, IAP_LOG_FORMAT, IAP_LOG_LEVEL, IAP_CONFIG_FILE (a file of NAME=value lines read after the \
            environment). `iap config keys` lists every key; see docs/operations.md.
            """,
        version: BuildInfo.versionLine
    )

    @Option(help: "Pipeline file the notifications topic is read from (env IAP_PIPELINE).") var pipeline: String?
    @Option(help: "Kafka bootstrap servers (env KAFKA_BROKERS).") var brokers: String?
    @Option(help: "Listen address (env IAP_GATEWAY_HOST, default 0.0.0.0).") var host: String?
    @Option(help: "Listen port, 0 for any (env IAP_GATEWAY_PORT, default 8080).") var port: Int?
    @Option(help: "Topic to write to instead of the pipeline file's iap.notifications (env IAP_GATEWAY_TOPIC).")
    var topic: String?
    @Option(help: "Ops listen address (env IAP_OPS_HOST, default 0.0.0.0).") var opsHost: String?
    @Option(help: "Ops port for /metrics /healthz /readyz (env IAP_OPS_PORT, default 9100).") var opsPort: Int?
    @Option(
        help: "Seconds a request waits for Kafka's acknowledgement (env IAP_GATEWAY_WRITE_TIMEOUT_SECONDS, default 10)."
    )
    var writeTimeout: Double?
    @Option(help: "PEM certificate chain; with --tls-key the listener speaks HTTPS (env IAP_GATEWAY_TLS_CERTIFICATE).")
    var tlsCertificate: String?
    @Option(help: "PEM private key (env IAP_GATEWAY_TLS_KEY).") var tlsKey: String?

    func run() async throws {
        let reader = try await SettingsReader.load()
        try SettingsCatalog.pipeline.refuseUnknownNames(in: reader)
        let process = try HostSettings(process: "iap-gateway", reader: reader)
        LoggingBootstrap.bootstrap(format: process.logFormat, level: process.logLevel)

        var settings = try GatewaySettings(reader: reader)
        if let pipeline { settings.pipelinePath = pipeline }
        if let brokers { settings.kafka.bootstrapServers = brokers }
        if let host { settings.host = host }
        if let port { settings.port = port }
        if let topic { settings.topic = topic }
        if let opsHost { settings.opsHost = opsHost }
        if let opsPort { settings.opsPort = opsPort }
        if let writeTimeout {
            guard writeTimeout > 0, writeTimeout.isFinite else {
                throw ValidationError("--write-timeout must be a positive number of seconds")
            }
            settings.writeTimeout = .milliseconds(Int64(writeTimeout * 1000))
        }
        if let tlsCertificate { settings.tlsCertificatePath = tlsCertificate }
        if let tlsKey { settings.tlsKeyPath = tlsKey }

        let gateway = try Gateway(settings: settings, logger: Logger(label: "iap.gateway"))
        try await gateway.run()  // SIGTERM and SIGINT drain gracefully
    }
}

// Top-level code (this file must be main.swift) resolves `GatewayCommand.main()` to the
// synchronous entry point, which refuses async commands; parse and run by hand instead.
do {
    let command = try GatewayCommand.parse()
    try await command.run()
} catch {
    GatewayCommand.exit(withError: error)
}
