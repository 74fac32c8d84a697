import LocalServices
import Redis
import Testing

@Suite(.timeLimit(.minutes(2))) struct LocalRedisServerTests {
    /// Servers stopped and restarted from many tasks at once, as parallel test suites do: every
    /// `stop()` returns, and a stopped server no longer answers.
    @Test func concurrentStopsAndRestartsReturnAndStoppedServersAreGone() async throws {
        let servers = try await withThrowingTaskGroup(of: LocalRedisServer.self) { group in
            for _ in 0..<12 { group.addTask { try await LocalRedisServer.start() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for server in servers { group.addTask { try await server.restart() } }
            try await group.waitForAll()
        }
        await withTaskGroup(of: Void.self) { group in
            for server in servers { group.addTask { server.stop() } }
        }
        for server in servers {
            let client = RedisClient(configuration: try server.configuration(poolSize: 1))
            await #expect(throws: RedisError.self) { try await client.send("PING") }
            await client.shutdown()
        }
    }
}

@Suite struct FreeLoopbackPortTests {
    /// Stacks started side by side in one process pick hundreds of ports between check and
    /// bind: a port is never handed out twice (at random, 2,000 picks out of ~22,000 would
    /// collide almost surely).
    @Test func aPortIsHandedOutOncePerProcess() throws {
        let ports = try (0..<2_000).map { _ in try LocalRedisServer.freeLoopbackPort() }
        #expect(Set(ports).count == ports.count)
    }
}
