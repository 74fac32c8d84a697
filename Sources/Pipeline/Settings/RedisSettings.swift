import Catalog
import Foundation
public import Redis
public import Settings

/// How a worker (or `iap orders rebuild`) connects to Redis. One default per key: the driver's
/// ``RedisConfiguration`` has none of its own.
public struct RedisSettings: Sendable {
    /// The URL as the driver parses it: text it cannot parse is refused here, at start-up.
    public static let url = RedisKeys.url.map { text in
        (try? RedisConfiguration(url: text, poolSize: 1, connectTimeout: .seconds(1), commandTimeout: .seconds(1)))
            == nil ? nil : text
    }
    public static let poolSize = RedisKeys.poolSize
    public static let connectTimeout = RedisKeys.connectTimeout
    public static let commandTimeout = RedisKeys.commandTimeout

    public static let tlsCAFile = RedisKeys.tlsCAFile
    public static let tlsCertificateFile = RedisKeys.tlsCertificateFile
    public static let tlsKeyFile = RedisKeys.tlsKeyFile
    public static let tlsServerName = RedisKeys.tlsServerName
    public static let reconnectInitialDelay = RedisKeys.reconnectInitialDelay
    public static let reconnectMaximumDelay = RedisKeys.reconnectMaximumDelay

    public static let section = RedisKeys.section

    public var url: String
    public var poolSize: Int
    public var connectTimeout: Duration
    public var commandTimeout: Duration
    /// Used by `rediss://` URLs only; set with a `redis://` URL it is refused.
    public var tls: RedisConfiguration.TLS
    public var reconnect: RedisConfiguration.Reconnect

    public init(reader: SettingsReader) throws(SettingsError) {
        url = try reader.value(Self.url)
        poolSize = try reader.value(Self.poolSize)
        connectTimeout = try reader.value(Self.connectTimeout)
        commandTimeout = try reader.value(Self.commandTimeout)
        tls = RedisConfiguration.TLS(
            caFile: try reader.optional(Self.tlsCAFile), certificateFile: try reader.optional(Self.tlsCertificateFile),
            keyFile: try reader.optional(Self.tlsKeyFile), serverName: try reader.optional(Self.tlsServerName))
        reconnect = RedisConfiguration.Reconnect(
            initialDelay: try reader.value(Self.reconnectInitialDelay),
            maximumDelay: try reader.value(Self.reconnectMaximumDelay))
        if tls != RedisConfiguration.TLS(), !url.hasPrefix("rediss://") {
            throw SettingsError(
                .invalidValue, key: Self.url.name, "the REDIS_TLS_ keys are set but REDIS_URL is not a rediss:// URL")
        }
        if (tls.certificateFile == nil) != (tls.keyFile == nil) {
            throw SettingsError(
                .invalidValue, key: tls.keyFile == nil ? Self.tlsKeyFile.name : Self.tlsCertificateFile.name,
                "REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE are set together or not at all")
        }
    }

    public func configuration() throws(RedisError) -> RedisConfiguration {
        try RedisConfiguration(
            url: url, poolSize: poolSize, connectTimeout: connectTimeout, commandTimeout: commandTimeout, tls: tls,
            reconnect: reconnect)
    }
}
