import LocalServices
import Redis
import TestSupport
import Testing

/// Redis 6 ACL users in the URL: `AUTH user password`, %-decoded.
@Suite(.timeLimit(.minutes(2))) struct RedisACLTests {
    @Test func parsesAndDecodesCredentials() throws {
        let configuration = try RedisConfiguration(url: "redis://app%2Dworker:p%40ss%3Aw%2Frd%25@cache:6380/1")
        #expect(configuration.username == "app-worker")
        #expect(configuration.password == "p@ss:w/rd%")
        let legacy = try RedisConfiguration(url: "redis://:only-password@cache")
        #expect(legacy.username == nil && legacy.password == "only-password")
        let tls = try RedisConfiguration(url: "rediss://u:p@[::1]:6390")
        #expect(tls.host == "::1" && tls.port == 6390 && tls.tls == RedisConfiguration.TLS())
        #expect(tls.description == "rediss://u:***@::1:6390/0 (pool 8)")
    }

    @Test func tlsOptionsNeedARedissURL() {
        #expect(throws: RedisError(code: .invalidConfiguration, message: "")) {
            try RedisConfiguration(url: "redis://cache", tls: RedisConfiguration.TLS(caFile: "/ca.pem"))
        }
        #expect(throws: RedisError(code: .invalidConfiguration, message: "")) {
            try RedisConfiguration(url: "rediss://cache", tls: RedisConfiguration.TLS(certificateFile: "/c.pem"))
        }
    }

    @Test func aclUserAuthenticatesAndAWrongPasswordIsAnAuthenticationError() async throws {
        // A server of its own: ACL users belong to the whole server.
        try await withPrivateRedisClient(poolSize: 1) { server, admin in
            _ = try await admin.send("ACL", "SETUSER", "app", "on", ">p@ss:w/rd%", "~app:*", "+@all")
            let url = "redis://app:p%40ss%3Aw%2Frd%25@127.0.0.1:\(server.port)"
            try await withClient(try RedisConfiguration(url: url, poolSize: 1)) { client in
                #expect(try await client.send("ACL", "WHOAMI") == .string(Array("app".utf8)))
                _ = try await client.send("SET", "app:k", "v")
                // The ACL's key pattern holds: the user is who the server thinks it is.
                await #expect(throws: RedisError(code: .server, message: "")) {
                    try await client.send("SET", "other:k", "v")
                }
            }
            let wrong = "redis://app:nope@127.0.0.1:\(server.port)"
            try await withClient(try RedisConfiguration(url: wrong, poolSize: 1)) { client throws in
                _ = await #expect {
                    try await client.send("PING")
                } throws: { error in
                    let error = try #require(error as? RedisError)
                    return error.code == .authenticationFailed && error.message.contains("as user 'app'")
                        && error.message.contains("WRONGPASS") && !error.message.contains("nope")
                }
            }
        }
    }
}
