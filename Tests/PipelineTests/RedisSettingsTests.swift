import Pipeline
import Redis
import Settings
import Testing

/// The `REDIS_TLS_*` and `REDIS_RECONNECT_*` keys reach the driver's configuration (D25).
@Suite struct RedisSettingsTests {
    @Test func tlsAndReconnectKeysAreRead() throws {
        let settings = try RedisSettings(
            reader: SettingsReader(environment: [
                "REDIS_URL": "rediss://app:p%40ss@cache:6380/1", "REDIS_TLS_CA_FILE": "/etc/redis/ca.pem",
                "REDIS_TLS_CERT_FILE": "/etc/redis/client.pem", "REDIS_TLS_KEY_FILE": "/etc/redis/client-key.pem",
                "REDIS_TLS_SERVER_NAME": "cache.internal", "REDIS_RECONNECT_INITIAL_MS": "50",
                "REDIS_RECONNECT_MAX_MS": "5000",
            ]))
        let configuration = try settings.configuration()
        #expect(
            configuration.tls
                == RedisConfiguration.TLS(
                    caFile: "/etc/redis/ca.pem", certificateFile: "/etc/redis/client.pem",
                    keyFile: "/etc/redis/client-key.pem", serverName: "cache.internal"))
        #expect(configuration.username == "app" && configuration.password == "p@ss")
        #expect(configuration.reconnect.initialDelay == .milliseconds(50))
        #expect(configuration.reconnect.maximumDelay == .seconds(5))
        let worker = try WorkerSettings(
            stage: "verify", environment: ["REDIS_URL": "rediss://cache", "REDIS_TLS_CA_FILE": "/ca.pem"])
        #expect(worker.redisTLS.caFile == "/ca.pem" && worker.redisReconnect == RedisConfiguration.Reconnect())
    }

    @Test func tlsKeysNeedARedissURLAndCertificateAndKeyGoTogether() {
        #expect {
            try RedisSettings(
                reader: SettingsReader(environment: ["REDIS_URL": "redis://cache", "REDIS_TLS_CA_FILE": "/ca.pem"]))
        } throws: { error in
            (error as? SettingsError)?.key == "REDIS_URL"
        }
        #expect {
            try RedisSettings(
                reader: SettingsReader(environment: [
                    "REDIS_URL": "rediss://cache", "REDIS_TLS_CERT_FILE": "/client.pem",
                ]))
        } throws: { error in
            (error as? SettingsError)?.key == "REDIS_TLS_KEY_FILE"
        }
    }
}
