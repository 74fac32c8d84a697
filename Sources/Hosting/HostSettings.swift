import Catalog
public import Logging
public import Settings

/// What every hosted process reads, worker or gateway: the ops listener, the shutdown grace,
/// logging and the replica's identity.
public struct HostSettings: Sendable {
    public static let opsHost = HostKeys.opsHost
    public static let opsPort = HostKeys.opsPort
    public static let shutdownGrace = HostKeys.shutdownGrace
    public static let logFormat = HostKeys.logFormat.map { LogFormat(rawValue: $0) }
    public static let logLevel = HostKeys.logLevel.map { Logger.Level(rawValue: $0) }
    public static let clientId = HostKeys.clientId
    public static let groupInstanceId = HostKeys.groupInstanceId
    public static let staticMembership = HostKeys.staticMembership

    public static let section = HostKeys.section

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
