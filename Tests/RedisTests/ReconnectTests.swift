import LocalServices
import Redis
import TestSupport
import Testing

/// The reconnect backoff and its log lines. Assertions are on counts and order, never on how
/// long anything took.
@Suite(.timeLimit(.minutes(2))) struct ReconnectTests {
    @Test func delaysDoubleUpToTheCap() {
        let policy = RedisConfiguration.Reconnect(initialDelay: .milliseconds(100), maximumDelay: .seconds(30))
        #expect(policy.delay(afterFailures: 0) == .zero)
        #expect(policy.delay(afterFailures: 1) == .milliseconds(100))
        #expect(policy.delay(afterFailures: 2) == .milliseconds(200))
        #expect(policy.delay(afterFailures: 5) == .milliseconds(1600))
        #expect(policy.delay(afterFailures: 9) == .milliseconds(25_600))
        #expect(policy.delay(afterFailures: 10) == .seconds(30))
        #expect(policy.delay(afterFailures: 10_000) == .seconds(30))
        let flat = RedisConfiguration.Reconnect(initialDelay: .seconds(2), maximumDelay: .seconds(1))
        #expect(flat.maximumDelay == .seconds(2))
    }

    /// A wrong password with a long first delay: many commands, at most one AUTH per
    /// connection on the server, one log line, and every command fails with the
    /// authentication error.
    @Test func wrongPasswordDoesNotSpin() async throws {
        // A server of its own: CONFIG SET requirepass locks every other client out.
        try await withPrivateRedisClient(poolSize: 1) { server, admin in
            _ = try await admin.send("CONFIG", "SET", "requirepass", "right")
            let connectionsBefore = try await connectionsReceived(admin)
            let log = LogCapture()
            let configuration = try RedisConfiguration(
                url: "redis://:wrong@127.0.0.1:\(server.port)", poolSize: 4, connectTimeout: .seconds(1),
                reconnect: RedisConfiguration.Reconnect(initialDelay: .seconds(60), maximumDelay: .seconds(60)))
            let client = RedisClient(configuration: configuration, logger: log.logger())
            // Concurrent callers spread over the four connections; each may try once before
            // the first failure turns the pool's state down, none twice.
            var codes = await withTaskGroup(of: RedisError.Code?.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        do {
                            _ = try await client.send("PING")
                            return nil
                        } catch {
                            return (error as? RedisError)?.code ?? .server
                        }
                    }
                }
                return await group.reduce(into: [RedisError.Code]()) { if let code = $1 { $0.append(code) } }
            }
            #expect(codes == Array(repeating: .authenticationFailed, count: 40))
            let afterConcurrent = try await connectionsReceived(admin) - connectionsBefore
            #expect((1...4).contains(afterConcurrent))
            codes = []
            for _ in 0..<40 {
                do {
                    _ = try await client.send("PING")
                } catch let error as RedisError {
                    codes.append(error.code)
                }
            }
            await client.shutdown()
            #expect(codes == Array(repeating: .authenticationFailed, count: 40))
            #expect(try await connectionsReceived(admin) - connectionsBefore == afterConcurrent)
            #expect(log.lines == ["redis unavailable; retrying with backoff"])
        }
    }

    /// connected → lost → (a failed attempt) → reconnected: one line each, in that order.
    @Test func oneLogLinePerStateChange() async throws {
        try await withRedisServer { server in
            let log = LogCapture()
            var configuration = try server.configuration(poolSize: 1)
            configuration.reconnect = RedisConfiguration.Reconnect(
                initialDelay: .milliseconds(20), maximumDelay: .milliseconds(40))
            try await withClient(configuration) { client in
                _ = try await client.send("SET", "k", "v")
            }
            let client = RedisClient(configuration: configuration, logger: log.logger())
            for _ in 0..<5 { _ = try await client.send("PING") }
            server.stop()
            await #expect(throws: RedisError(code: .connectionLost, message: "")) { try await client.send("PING") }
            for _ in 0..<5 {
                await #expect(throws: RedisError(code: .connectionFailed, message: "")) {
                    try await client.send("PING")
                }
            }
            try await server.restart()
            // The next attempt is due within the connect timeout: the call waits for it.
            #expect(try await client.send("PING") == .status("PONG"))
            #expect(try await client.send("PING") == .status("PONG"))
            await client.shutdown()
            #expect(
                log.lines == [
                    "redis connected", "redis connection lost; reconnecting",
                    "redis reconnect failed; retrying with backoff", "redis reconnected",
                ])
        }
    }

    /// Refused, then the server answers but refuses the password: the reason changes, which
    /// is logged once more; repeats of either reason are not.
    @Test func aChangedReasonIsLoggedOnce() async throws {
        try await withRedisServer { server in
            server.stop()
            let log = LogCapture()
            let configuration = try RedisConfiguration(
                url: "redis://:wrong@127.0.0.1:\(server.port)", poolSize: 1, connectTimeout: .seconds(1),
                reconnect: RedisConfiguration.Reconnect(initialDelay: .milliseconds(1), maximumDelay: .milliseconds(1)))
            let client = RedisClient(configuration: configuration, logger: log.logger())
            for _ in 0..<3 {
                await #expect(throws: RedisError(code: .connectionFailed, message: "")) {
                    try await client.send("PING")
                }
            }
            // Restarted without the password: `AUTH` is refused all the same.
            try await server.restart()
            for _ in 0..<3 {
                await #expect(throws: RedisError(code: .authenticationFailed, message: "")) {
                    try await client.send("PING")
                }
            }
            await client.shutdown()
            #expect(
                log.lines == [
                    "redis unavailable; retrying with backoff", "redis still unavailable; the reason changed",
                ])
        }
    }

    /// A master demoted to a replica keeps its clients' connections: a `READONLY` reply drops
    /// ours, so the next command reconnects (through a failover endpoint, to the new master).
    @Test func readOnlyReplyReconnects() async throws {
        try await withRedisServer { other in
            // A server of its own: it makes the server a replica and reads INFO stats of the whole server.
            try await withPrivateRedisClient(poolSize: 1) { server, admin in
                let log = LogCapture()
                let client = RedisClient(configuration: try server.configuration(poolSize: 1), logger: log.logger())
                let before = try await client.send("CLIENT", "ID")
                _ = try await admin.send("REPLICAOF", "127.0.0.1", .string(String(other.port)))
                await #expect {
                    try await client.send("SET", "k", "v")
                } throws: { error in
                    (error as? RedisError)?.code == .server && "\(error)".contains("READONLY")
                }
                _ = try await admin.send("REPLICAOF", "NO", "ONE")
                #expect(try await client.send("CLIENT", "ID") != before)
                _ = try await client.send("SET", "k", "v")
                await client.shutdown()
                #expect(log.lines == ["redis connected", "redis connection lost; reconnecting", "redis reconnected"])
            }
        }
    }

    private func connectionsReceived(_ admin: RedisClient) async throws -> Int {
        let info = try #require(try await admin.send("INFO", "stats").string)
        let line = try #require(info.split(separator: "\r\n").first { $0.hasPrefix("total_connections_received:") })
        return try #require(Int(line.split(separator: ":")[1]))
    }
}
