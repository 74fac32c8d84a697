import Redis
import Testing

@Suite(.timeLimit(.minutes(2))) struct RedisConfigurationTests {
    @Test func parsesFullURL() throws {
        let configuration = try RedisConfiguration(url: "redis://:s3cret@cache.internal:6380/2")
        #expect(configuration.host == "cache.internal")
        #expect(configuration.port == 6380)
        #expect(configuration.password == "s3cret")
        #expect(configuration.username == nil)
        #expect(configuration.database == 2)
        #expect(configuration.poolSize == 8)
    }

    @Test func defaultsPortAndDatabase() throws {
        let configuration = try RedisConfiguration(url: "redis://localhost")
        #expect(configuration.port == 6379)
        #expect(configuration.database == 0)
        #expect(configuration.password == nil)
    }

    @Test func parsesUsername() throws {
        let configuration = try RedisConfiguration(url: "redis://worker:pw@10.0.0.1:7000")
        #expect(configuration.username == "worker")
        #expect(configuration.password == "pw")
    }

    @Test(arguments: [
        ("http://localhost:6379", "expected redis://"),
        ("redis//localhost:6379", "expected redis:// or rediss://"),
        ("redis://:%zz@host", "invalid %-escape"),
        ("redis://localhost:notaport", "port 'notaport'"),
        ("redis://localhost:70000", "port '70000'"),
        ("redis://localhost:6379/x", "database 'x'"),
        ("redis://:pw@", "missing host"),
    ])
    func rejectsBadURL(url: String, reason: String) {
        #expect {
            try RedisConfiguration(url: url)
        } throws: { error in
            guard let error = error as? RedisError else { return false }
            return error.code == .invalidConfiguration && error.message.contains(reason)
        }
    }

    @Test func descriptionHidesThePassword() throws {
        let configuration = try RedisConfiguration(url: "redis://app:hunter2@cache:6380/1")
        #expect(configuration.description == "redis://app:***@cache:6380/1 (pool 8)")
    }

    @Test func errorMessageRedactsPassword() {
        #expect {
            try RedisConfiguration(url: "redis://:hunter2@host:badport")
        } throws: { error in
            "\(error)".contains("***") && !"\(error)".contains("hunter2")
        }
    }
}
