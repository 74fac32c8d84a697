import Foundation
public import Hosting
public import Redis

/// How a worker (or `iap orders rebuild`) connects to Redis. One default per key: the driver's
/// ``RedisConfiguration`` has none of its own.
public struct RedisSettings: Sendable {
    public static let url = Setting<String>(
        "REDIS_URL", "`redis://[[user]:password@]host[:port][/db]` (no `rediss://`: hiredis 0.14.1 has no TLS)",
        expecting: "a redis:// URL", default: "redis://127.0.0.1:6379", redact: redactPassword
    ) { text in
        (try? RedisConfiguration(url: text, poolSize: 1, connectTimeout: .seconds(1), commandTimeout: .seconds(1)))
            == nil ? nil : text
    }
    public static let poolSize = Setting<Int>.integer(
        "REDIS_POOL_SIZE", "Connections, each on its own thread; concurrent commands are pipelined on them (D14)",
        default: 2, in: 1...64
    )
    public static let connectTimeout = Setting<Duration>.milliseconds(
        "REDIS_CONNECT_TIMEOUT_MS", "TCP connect timeout", default: 2000)
    public static let commandTimeout = Setting<Duration>.milliseconds(
        "REDIS_COMMAND_TIMEOUT_MS", "Socket read/write timeout per command; a timeout closes its connection",
        default: 5000
    )

    public static let section = SettingsSection(
        "Redis", readBy: "workers, iap orders",
        [url.descriptor, poolSize.descriptor, connectTimeout.descriptor, commandTimeout.descriptor])

    public var url: String
    public var poolSize: Int
    public var connectTimeout: Duration
    public var commandTimeout: Duration

    public init(reader: SettingsReader) throws(SettingsError) {
        url = try reader.value(Self.url)
        poolSize = try reader.value(Self.poolSize)
        connectTimeout = try reader.value(Self.connectTimeout)
        commandTimeout = try reader.value(Self.commandTimeout)
    }

    public func configuration() throws(RedisError) -> RedisConfiguration {
        try RedisConfiguration(
            url: url, poolSize: poolSize, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
    }

    /// `redis://:***@host:6379/0`: the URL without its password.
    @Sendable static func redactPassword(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://") else { return text }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<credentials.index(after: colon)]) + "***" + String(text[at...])
    }
}
