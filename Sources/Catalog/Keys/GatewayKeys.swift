public import Settings

/// The keys of `iap-gateway` besides the host's and the cluster's. Read by `GatewaySettings`
/// (Gateway), which forwards these.
public enum GatewayKeys {
    public static let listenHost = Setting<String>.text(
        "IAP_GATEWAY_HOST", "Address of the notification listener", default: "0.0.0.0")
    public static let listenPort = Setting<Int>.port(
        "IAP_GATEWAY_PORT", "Port of the notification listener", default: 8080)
    public static let topicOverride = Setting<String>.text(
        "IAP_GATEWAY_TOPIC",
        "Write to this topic instead of the pipeline file's `iap.notifications` (the file is then not read)"
    )
    public static let writeTimeout = Setting<Duration>.seconds(
        "IAP_GATEWAY_WRITE_TIMEOUT_SECONDS",
        "How long a request waits for Kafka's acknowledgement before answering 503 (also `message.timeout.ms`)",
        default: "10"
    )
    public static let maxBodyBytes = Setting<Int>.integer(
        "IAP_GATEWAY_MAX_BODY_BYTES", "Larger bodies are refused with 400", default: 1 << 20, in: 1...Int.max
    )
    public static let tlsCertificate = Setting<String>.text(
        "IAP_GATEWAY_TLS_CERTIFICATE",
        "PEM certificate chain; with the key the listener speaks HTTPS, otherwise plain HTTP behind a TLS proxy"
    )
    public static let tlsKey = Setting<String>.text("IAP_GATEWAY_TLS_KEY", "PEM private key of the HTTPS listener")

    public static let section = SettingsSection(
        "Gateway", readBy: "iap-gateway",
        [
            listenHost.descriptor, listenPort.descriptor, topicOverride.descriptor, writeTimeout.descriptor,
            maxBodyBytes.descriptor, tlsCertificate.descriptor, tlsKey.descriptor,
        ]
    )
}
