public import Settings

/// What every hosted process reads, worker or gateway: the ops listener, the shutdown grace,
/// logging and the replica's identity. Read by `HostSettings` (Hosting), which forwards these.
public enum HostKeys {
    public static let opsHost = Setting<String>.text(
        "IAP_OPS_HOST", "Address of the `/metrics`, `/healthz`, `/readyz` listener", default: "0.0.0.0")
    public static let opsPort = Setting<Int>.port("IAP_OPS_PORT", "Port of the ops listener", default: 9100)
    public static let shutdownGrace = Setting<Duration>.seconds(
        "IAP_SHUTDOWN_GRACE_SECONDS",
        "How long SIGTERM may drain (commit, leave the group, finish requests) before work is cancelled", default: "30"
    )
    /// Hosting's `LogFormat`, by its raw values.
    public static let logFormat = Setting<String>.choice(
        "IAP_LOG_FORMAT", "`text` for terminals, `json` (one object per line) for log shippers", default: "text",
        ignoringCase: true, words(["text", "json"])
    )
    /// swift-log's `Logger.Level`, by its raw values.
    public static let logLevel = Setting<String>.choice(
        "IAP_LOG_LEVEL", "swift-log level", default: "info", ignoringCase: true,
        words(["trace", "debug", "info", "notice", "warning", "error", "critical"])
    )
    public static let clientId = Setting<String>.text(
        "IAP_CLIENT_ID", "Kafka `client.id` (default `<process>-<host name>`)")
    public static let groupInstanceId = Setting<String>.text(
        "IAP_GROUP_INSTANCE_ID", "Static group membership: this replica's stable `group.instance.id`"
    )
    public static let staticMembership = Setting<Bool>.flag(
        "IAP_STATIC_MEMBERSHIP", "Use `<process>-<host name>` as `group.instance.id` (a StatefulSet's pod name)",
        default: false
    )

    public static let section = SettingsSection(
        "Process", readBy: "every executable",
        [
            SettingsReader.file.descriptor, opsHost.descriptor, opsPort.descriptor, shutdownGrace.descriptor,
            logFormat.descriptor, logLevel.descriptor, clientId.descriptor, groupInstanceId.descriptor,
            staticMembership.descriptor,
        ]
    )
}

/// A choice's words, each standing for itself: the module that owns the type maps them on
/// (`Setting.map`).
func words(_ words: [String]) -> [String: String] {
    Dictionary(uniqueKeysWithValues: words.map { ($0, $0) })
}
