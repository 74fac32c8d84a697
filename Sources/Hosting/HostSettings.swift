public import Logging
public import Settings

/// What every hosted process reads, worker or gateway: the ops listener, the shutdown grace,
/// logging and the replica's identity.
public struct HostSettings: Sendable {
    public static let opsHost = Setting<String>.text(
        "IAP_OPS_HOST", "Address of the `/metrics`, `/healthz`, `/readyz` listener", default: "0.0.0.0")
    public static let opsPort = Setting<Int>.port("IAP_OPS_PORT", "Port of the ops listener", default: 9100)
    public static let shutdownGrace = Setting<Duration>.seconds(
        "IAP_SHUTDOWN_GRACE_SECONDS",
        "How long SIGTERM may drain (commit, leave the group, finish requests) before work is cancelled", default: "30"
    )
    public static let logFormat = Setting<LogFormat>.choice(
        "IAP_LOG_FORMAT", "`text` for terminals, `json` (one object per line) for log shippers", default: "text",
        ignoringCase: true,
        Dictionary(uniqueKeysWithValues: LogFormat.allCases.map { ($0.rawValue, $0) })
    )
    public static let logLevel = Setting<Logger.Level>.choice(
        "IAP_LOG_LEVEL", "swift-log level", default: "info", ignoringCase: true,
        Dictionary(uniqueKeysWithValues: Logger.Level.allCases.map { ($0.rawValue, $0) })
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

    public var opsHost: String
    public var opsPort: Int
    public var shutdownGracePeriod: Duration
    public var logFormat: LogFormat
    public var logLevel: Logger.Level
    public var identity: ReplicaIdentity

    /// - Parameter process: names the replica (`verify`, `iap-gateway`) in its default client id.
    public init(process: String, reader: SettingsReader) throws(SettingsError) {
        opsHost = try reader.value(Self.opsHost)
        opsPort = try reader.value(Self.opsPort)
        shutdownGracePeriod = try reader.value(Self.shutdownGrace)
        logFormat = try reader.value(Self.logFormat)
        logLevel = try reader.value(Self.logLevel)
        let host = reader.lookup("HOSTNAME")?.text ?? ReplicaIdentity.hostName
        var instance = try reader.optional(Self.groupInstanceId)
        if instance == nil, try reader.value(Self.staticMembership) { instance = "\(process)-\(host)" }
        identity = ReplicaIdentity(
            clientId: try reader.optional(Self.clientId) ?? "\(process)-\(host)", groupInstanceId: instance)
    }
}
