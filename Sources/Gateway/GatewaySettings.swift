public import Foundation
public import Pipeline

/// Process-level settings of `iap-gateway`, read from the environment; the executable's flags
/// override them. Unknown or unparsable values fail start-up with a message naming the key.
///
/// ## Environment
/// - `KAFKA_BROKERS`: bootstrap servers (default `127.0.0.1:9092`)
/// - `IAP_GATEWAY_HOST`, `IAP_GATEWAY_PORT`: the notification listener (default `0.0.0.0:8080`;
///   0 = any free port)
/// - `IAP_PIPELINE`: pipeline file the notifications topic is looked up in (default `pipelines/iap.yaml`)
/// - `IAP_GATEWAY_TOPIC`: write to this topic instead of the pipeline file's `iap.notifications`
///   (the pipeline file is then not read)
/// - `IAP_OPS_HOST`, `IAP_OPS_PORT`: the `/metrics`, `/healthz`, `/readyz` listener, separate from
///   the public one (default `0.0.0.0:9100`; 0 = any free port)
/// - `IAP_GATEWAY_WRITE_TIMEOUT_SECONDS`: how long a request waits for Kafka's acknowledgement
///   before answering 503 (default 10; also librdkafka's `message.timeout.ms`)
/// - `IAP_GATEWAY_MAX_BODY_BYTES`: larger bodies are refused with 400 (default 1048576)
/// - `IAP_GATEWAY_TLS_CERTIFICATE`, `IAP_GATEWAY_TLS_KEY`: PEM certificate chain and private key;
///   when both are set the listener speaks HTTPS, otherwise plain HTTP behind a TLS-terminating proxy
/// - `IAP_SHUTDOWN_GRACE_SECONDS`: how long SIGTERM may take to finish running requests (default 30)
/// - `IAP_CLIENT_ID`: Kafka `client.id` (default `iap-gateway-<host name>`)
/// - `IAP_KAFKA_<PROPERTY>`: any librdkafka producer property, dots as underscores
///   (`IAP_KAFKA_COMPRESSION_TYPE=zstd` sets `compression.type`)
/// - `IAP_LOG_FORMAT`, `IAP_LOG_LEVEL`: see `LoggingBootstrap`
public struct GatewaySettings: Sendable {
    /// The topic the pipeline file declares for App Store Server Notifications.
    public static let defaultTopic = "iap.notifications"

    public var kafkaBrokers = "127.0.0.1:9092"
    public var host = "0.0.0.0"
    public var port = 8080
    public var pipelinePath = "pipelines/iap.yaml"
    /// Overrides the pipeline file's topic when set.
    public var topic: String?
    public var opsHost = "0.0.0.0"
    public var opsPort = 9100
    public var writeTimeout: Duration = .seconds(10)
    public var maxBodyBytes = 1 << 20
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    public var shutdownGracePeriod: Duration = .seconds(30)
    public var clientId: String
    public var kafkaProperties: [String: String] = [:]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(GatewaySettingsError) {
        clientId = ReplicaIdentity.fromEnvironment(stage: "iap-gateway", environment: environment).clientId
        if let value = environment["KAFKA_BROKERS"] { kafkaBrokers = value }
        if let value = environment["IAP_GATEWAY_HOST"] { host = value }
        if let value = environment["IAP_GATEWAY_PORT"] { port = try Self.port(value, key: "IAP_GATEWAY_PORT") }
        if let value = environment["IAP_PIPELINE"] { pipelinePath = value }
        if let value = environment["IAP_GATEWAY_TOPIC"], !value.isEmpty { topic = value }
        if let value = environment["IAP_OPS_HOST"] { opsHost = value }
        if let value = environment["IAP_OPS_PORT"] { opsPort = try Self.port(value, key: "IAP_OPS_PORT") }
        if let value = environment["IAP_GATEWAY_WRITE_TIMEOUT_SECONDS"] {
            writeTimeout = try Self.seconds(value, key: "IAP_GATEWAY_WRITE_TIMEOUT_SECONDS")
        }
        if let value = environment["IAP_GATEWAY_MAX_BODY_BYTES"] {
            guard let bytes = Int(value), bytes > 0 else { throw GatewaySettingsError("IAP_GATEWAY_MAX_BODY_BYTES must be a positive integer, got '\(value)'") }
            maxBodyBytes = bytes
        }
        tlsCertificatePath = environment["IAP_GATEWAY_TLS_CERTIFICATE"].flatMap { $0.isEmpty ? nil : $0 }
        tlsKeyPath = environment["IAP_GATEWAY_TLS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if let value = environment["IAP_SHUTDOWN_GRACE_SECONDS"] {
            shutdownGracePeriod = try Self.seconds(value, key: "IAP_SHUTDOWN_GRACE_SECONDS")
        }
        kafkaProperties = WorkerSettings.kafkaProperties(environment)
    }

    /// Checks combinations the individual keys cannot: TLS needs both files.
    public func validate() throws(GatewaySettingsError) {
        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            throw GatewaySettingsError("TLS needs both IAP_GATEWAY_TLS_CERTIFICATE and IAP_GATEWAY_TLS_KEY (or neither)")
        }
        guard writeTimeout > .zero else { throw GatewaySettingsError("the write timeout must be positive") }
    }

    /// The topic notifications are written to: ``topic`` when set, else the pipeline file's
    /// ``defaultTopic``, which the file must declare (a typo fails start-up, not every request).
    public func notificationsTopic() throws -> String {
        if let topic { return topic }
        return try Self.notificationsTopic(in: PipelineFile.load(path: pipelinePath))
    }

    /// ``defaultTopic`` if `file` declares it.
    public static func notificationsTopic(in file: PipelineFile) throws(GatewaySettingsError) -> String {
        guard file.topics.contains(where: { $0.name == defaultTopic }) else {
            throw GatewaySettingsError("the pipeline file declares no topic '\(defaultTopic)'; set IAP_GATEWAY_TOPIC or --topic")
        }
        return defaultTopic
    }

    private static func port(_ text: String, key: String) throws(GatewaySettingsError) -> Int {
        guard let port = Int(text), (0...65535).contains(port) else { throw GatewaySettingsError("\(key) must be a port number, got '\(text)'") }
        return port
    }

    private static func seconds(_ text: String, key: String) throws(GatewaySettingsError) -> Duration {
        guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
            throw GatewaySettingsError("\(key) must be a positive number of seconds, got '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }
}

/// A gateway setting was missing, malformed or inconsistent.
public struct GatewaySettingsError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
