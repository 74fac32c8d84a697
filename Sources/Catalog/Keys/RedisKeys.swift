import Foundation
public import Settings

/// How a worker (or `iap orders rebuild`) connects to Redis. Read by `RedisSettings` (Pipeline),
/// which forwards these and holds `url` to the driver's own parse of it.
public enum RedisKeys {
    /// Any text here; `RedisSettings.url` refuses what the driver cannot parse.
    public static let url = Setting<String>(
        "REDIS_URL",
        "`redis://[[user]:password@]host[:port][/db]`, `rediss://…` for TLS; user and password %-encoded (D25)",
        expecting: "a redis:// or rediss:// URL", default: "redis://127.0.0.1:6379", redact: redactPassword
    ) { $0 }
    public static let poolSize = Setting<Int>.integer(
        "REDIS_POOL_SIZE", "Connections, each on its own thread; concurrent commands are pipelined on them (D14)",
        default: 2, in: 1...64
    )
    public static let connectTimeout = Setting<Duration>.milliseconds(
        "REDIS_CONNECT_TIMEOUT_MS", "TCP connect timeout (for `rediss://` the TLS handshake included)", default: 2000)
    public static let commandTimeout = Setting<Duration>.milliseconds(
        "REDIS_COMMAND_TIMEOUT_MS", "Socket read/write timeout per command; a timeout closes its connection",
        default: 5000
    )

    public static let tlsCAFile = Setting<String>.text(
        "REDIS_TLS_CA_FILE", "`rediss://`: PEM file of the CAs to trust instead of the system store")
    public static let tlsCertificateFile = Setting<String>.text(
        "REDIS_TLS_CERT_FILE", "`rediss://`: PEM client certificate (chain), for servers with `tls-auth-clients`")
    public static let tlsKeyFile = Setting<String>.text(
        "REDIS_TLS_KEY_FILE", "`rediss://`: PEM private key of `REDIS_TLS_CERT_FILE`")
    public static let tlsServerName = Setting<String>.text(
        "REDIS_TLS_SERVER_NAME",
        "`rediss://`: name the server's certificate must carry and SNI sends, when not the URL's host")
    public static let reconnectInitialDelay = Setting<Duration>.milliseconds(
        "REDIS_RECONNECT_INITIAL_MS", "Wait after the first failed connection attempt; doubles per failure",
        default: 100)
    public static let reconnectMaximumDelay = Setting<Duration>.milliseconds(
        "REDIS_RECONNECT_MAX_MS", "Cap of the reconnect wait (jittered down by up to half)", default: 30000)

    public static let section = SettingsSection(
        "Redis", readBy: "workers, iap-api, iap orders",
        [
            url.descriptor, poolSize.descriptor, connectTimeout.descriptor, commandTimeout.descriptor,
            tlsCAFile.descriptor, tlsCertificateFile.descriptor, tlsKeyFile.descriptor, tlsServerName.descriptor,
            reconnectInitialDelay.descriptor, reconnectMaximumDelay.descriptor,
        ])

    /// `redis://:***@host:6379/0`: the URL without its password.
    @Sendable static func redactPassword(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://") else { return text }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<credentials.index(after: colon)]) + "***" + String(text[at...])
    }
}
