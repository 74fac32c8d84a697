import Foundation
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

@Suite(.timeLimit(.minutes(2))) struct LocalRedisServerFilesTests {
    /// A replica's full sync writes `dump.rdb` into the server's working directory, and a
    /// server loads it at start. It must be a directory of the server's own, emptied before each
    /// start: in the process's directory (the repository) one dump was committed and loaded by
    /// every later test server, and a restart did not come back empty.
    @Test func aSyncedReplicaLeavesNoDumpBehindAndARestartComesBackEmpty() async throws {
        let master = try await LocalRedisServer.start()
        defer { master.stop() }
        let replica = try await LocalRedisServer.start()
        defer { replica.stop() }
        let toMaster = RedisClient(configuration: try master.configuration(poolSize: 1))
        _ = try await toMaster.send("SET", "k", "v")
        await toMaster.shutdown()
        let toReplica = RedisClient(configuration: try replica.configuration(poolSize: 1))
        _ = try await toReplica.send("REPLICAOF", "127.0.0.1", .string(String(master.port)))
        var synced = false
        for _ in 0..<100 where !synced {
            synced = try await toReplica.send("GET", "k").string == "v"
            if !synced { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(synced, "the replica never got the master's key")
        _ = try await toReplica.send("REPLICAOF", "NO", "ONE")
        await toReplica.shutdown()

        let directory = FileManager.default.currentDirectoryPath
        #expect(!FileManager.default.fileExists(atPath: directory + "/dump.rdb"))
        try await replica.restart()
        let afterRestart = RedisClient(configuration: try replica.configuration(poolSize: 1))
        #expect(try await afterRestart.send("DBSIZE").integer == 0)
        await afterRestart.shutdown()
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
