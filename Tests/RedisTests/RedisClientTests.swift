import LocalServices
import Redis
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct RedisClientTests {
    @Test func binarySafeRoundTrip() async throws {
        try await withRedisClient { _, client throws in
            let value: [UInt8] = [0, 1, 2, 0xFF, 0xFE, 0, 13, 10] + Array("tail".utf8)
            let key: RedisValue = .bytes([0x6B, 0, 0x6B])
            #expect(try await client.send("SET", key, .bytes(value)) == .status("OK"))
            #expect(try await client.send("GET", key) == .string(value))
            #expect(try await client.send("STRLEN", key) == .integer(Int64(value.count)))
            #expect(try await client.send("SET", "empty", .bytes([])) == .status("OK"))
            #expect(try await client.send("GET", "empty") == .string([]))
            #expect(try await client.send("GET", "missing") == .null)
        }
    }

    @Test func pipelineKeepsOrderAndPerCommandErrors() async throws {
        try await withRedisClient { _, client throws in
            let commands: [[RedisValue]] = (0..<100).map { ["INCRBY", "counter", .integer(Int64($0))] }
            let replies = try await client.pipeline(commands + [["LPUSH", "counter", "x"], ["GET", "counter"]])
            #expect(replies.count == 102)
            #expect(replies[99] == .integer(Int64((0..<100).reduce(0, +))))
            guard case .error(let message) = replies[100] else {
                Issue.record("expected WRONGTYPE, got \(replies[100])")
                return
            }
            #expect(message.hasPrefix("WRONGTYPE"))
            #expect(replies[101].integer == 4950)
        }
    }

    @Test func serverErrorIsThrownWithItsMessage() async throws {
        try await withRedisClient { _, client throws in
            _ = try await client.send("SET", "s", "text")
            await #expect {
                try await client.send("INCR", "s")
            } throws: { error in
                (error as? RedisError)?.code == .server && "\(error)".contains("not an integer")
            }
        }
    }

    @Test func scriptShaMatchesServerAndSurvivesScriptFlush() async throws {
        // A server of its own: SCRIPT FLUSH empties the script cache of the whole server.
        try await withPrivateRedisClient(poolSize: 1) { _, client throws in
            let script = RedisScript("return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}")
            #expect(try await client.send("SCRIPT", "LOAD", .string(script.source)) == .string(Array(script.sha1.utf8)))
            let first = try await client.execute(EVALSHA<RedisReply>(script, keys: ["n"], arguments: [.bytes([0, 7])]))
            #expect(first == .array([.string(Array("n".utf8)), .string([0, 7]), .integer(1)]))
            _ = try await client.send("SCRIPT", "FLUSH")
            #expect(try await client.send("SCRIPT", "EXISTS", .string(script.sha1)) == .array([.integer(0)]))
            let second = try await client.execute(EVALSHA<RedisReply>(script, keys: ["n"], arguments: ["a"]))
            #expect(second.array?.last == .integer(2))
            #expect(try await client.send("SCRIPT", "EXISTS", .string(script.sha1)) == .array([.integer(1)]))
        }
    }

    @Test func scriptErrorIsThrown() async throws {
        try await withRedisClient { _, client throws in
            await #expect(throws: RedisError(code: .server, message: "")) {
                try await client.execute(EVALSHA<RedisReply>(RedisScript("return redis.call('NOPE')"), keys: []))
            }
        }
    }

    @Test func reconnectsAfterClientKill() async throws {
        try await withRedisClient(poolSize: 1) { server, client in
            let id = try #require(try await client.send("CLIENT", "ID").integer)
            try await withClient(try server.configuration(poolSize: 1)) { admin throws in
                #expect(try await admin.send("CLIENT", "KILL", "ID", .integer(id)) == .integer(1))
            }
            await #expect(throws: RedisError(code: .connectionLost, message: "")) {
                try await client.send("PING")
            }
            #expect(try await client.send("PING") == .status("PONG"))
            #expect(try await client.send("CLIENT", "ID").integer != id)
        }
    }

    @Test func reconnectsAfterServerRestart() async throws {
        // A server of its own: it stops and restarts the server.
        try await withPrivateRedisClient(poolSize: 1) { server, client in
            _ = try await client.send("SET", "before", "1")
            server.stop()
            await #expect(throws: RedisError(code: .connectionLost, message: "")) {
                try await client.send("GET", "before")
            }
            await #expect(throws: RedisError(code: .connectionFailed, message: "")) {
                try await client.send("PING")
            }
            try await server.restart()
            #expect(try await client.send("GET", "before") == .null)
            #expect(try await client.send("PING") == .status("PONG"))
        }
    }

    @Test func authenticatesAndSelectsDatabase() async throws {
        // A server of its own: CONFIG SET requirepass locks every other client out.
        try await withPrivateRedisClient { server, client in
            _ = try await client.send("CONFIG", "SET", "requirepass", "s3cret")
            try await withClient(try RedisConfiguration(url: "redis://:s3cret@127.0.0.1:\(server.port)/3", poolSize: 1))
            { authed in
                _ = try await authed.send("SET", "where", "db3")
                #expect(try await authed.send("CLIENT", "INFO").string?.contains("db=3") == true)
            }
            try await withClient(try RedisConfiguration(url: "redis://:nope@127.0.0.1:\(server.port)", poolSize: 1)) {
                wrong in
                await #expect(throws: RedisError(code: .authenticationFailed, message: "")) {
                    try await wrong.send("PING")
                }
            }
        }
    }

    @Test func moreConcurrentCallersThanConnections() async throws {
        try await withRedisClient(poolSize: 2) { _, client throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<200 {
                    group.addTask { _ = try await client.send("INCR", "hits") }
                }
                try await group.waitForAll()
            }
            #expect(try await client.send("GET", "hits").integer == 200)
        }
    }

    @Test func concurrentCommandsShareRoundTrips() async throws {
        // A server of its own: it waits for INFO's blocked_clients, a count of the whole server.
        try await withPrivateRedisClient(poolSize: 1, commandTimeout: Self.blockingTimeout) { server, client in
            try await withClient(try server.configuration(poolSize: 1)) { admin in
                // Hold the only connection so the 300 callers queue, then release it: they
                // must go out together, and each must still get its own reply.
                let blocked = Task { try await client.send("BLPOP", "gate", 0) }
                try await waitForBlockedClient(admin)
                let replies = try await withThrowingTaskGroup(of: (Int, RedisReply).self) { group in
                    for index in 0..<300 {
                        group.addTask { (index, try await client.send("ECHO", .string("reply-\(index)"))) }
                    }
                    while client.traffic.waiting < 301 { try await Task.sleep(for: .milliseconds(5)) }
                    _ = try await admin.send("RPUSH", "gate", "open")
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                _ = try await blocked.value
                #expect(replies.count == 300)
                #expect(replies.allSatisfy { $0.value == .string(Array("reply-\($0.key)".utf8)) })
                let traffic = client.traffic
                #expect(traffic.commands == 301)
                #expect(traffic.roundTrips <= 4, "300 queued commands took \(traffic.roundTrips - 1) round trips")
            }
        }
    }

    @Test func callsJoinAConnectionsRoundTripRatherThanWakeAnother() async throws {
        // A server of its own: it waits for INFO's blocked_clients, a count of the whole server.
        try await withRedisServer { server in
            var configuration = try server.configuration(poolSize: 4)
            configuration.commandTimeout = Self.blockingTimeout
            // The BLPOP's round trip stays "recent" for the whole test.
            configuration.joinWindow = .seconds(120)
            try await withClient(configuration) { client in
                try await withClient(try server.configuration(poolSize: 1)) { admin in
                    let blocked = Task { try await client.send("BLPOP", "gate", 0) }
                    try await waitForBlockedClient(admin)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in 0..<300 {
                            group.addTask {
                                let reply = try await client.send("ECHO", .string("\(index)"))
                                #expect(reply == .string(Array("\(index)".utf8)))
                            }
                        }
                        // Three connections stand idle, yet every call waits with the BLPOP's:
                        // all 301 are still queued or on the wire, none answered.
                        // `try?`: the gate must open even when they do not, or the test hangs.
                        let allWaiting = try? await eventually("301 calls waiting", every: .milliseconds(5)) {
                            client.traffic.waiting == 301 ? true : nil
                        }
                        #expect(allWaiting == true, "\(client.traffic.waiting) of 301 calls waiting")
                        _ = try await admin.send("RPUSH", "gate", "open")
                        try await group.waitForAll()
                    }
                    _ = try await blocked.value
                    let roundTrips = client.traffic.roundTrips
                    #expect(roundTrips <= 4, "300 queued commands took \(roundTrips - 1) round trips")
                }
            }
        }
    }

    @Test func aRoundTripOlderThanTheJoinWindowSendsCallsToAnotherConnection() async throws {
        // A server of its own: it waits for INFO's blocked_clients, a count of the whole server.
        try await withPrivateRedisClient(poolSize: 2, commandTimeout: Self.blockingTimeout) { server, client in
            try await withClient(try server.configuration(poolSize: 1)) { admin in
                let blocked = Task { try await client.send("BLPOP", "gate", 0) }
                try await waitForBlockedClient(admin)
                try await Task.sleep(for: client.configuration.joinWindow * 4)
                // The BLPOP holds the first connection: a call must not wait for it (D14). The
                // PING's round trip is the only one that can end before the BLPOP's.
                let ping = Task { try await client.send("PING") }
                _ = try? await eventually("a round trip ended", timeout: .seconds(20), every: .milliseconds(5)) {
                    client.traffic.roundTrips > 0 ? true : nil
                }
                #expect(client.traffic.roundTrips == 1, "the PING waited behind the BLPOP")
                _ = try await admin.send("RPUSH", "gate", "open")
                _ = try await blocked.value
                #expect(try await ping.value == .status("PONG"))
            }
        }
    }

    @Test func cancelledWaiterGivesUpAndTheConnectionStaysUsable() async throws {
        // A server of its own: it waits for INFO's blocked_clients, a count of the whole server.
        try await withPrivateRedisClient(poolSize: 1, commandTimeout: Self.blockingTimeout) { server, client in
            try await withClient(try server.configuration(poolSize: 1)) { admin in
                let blocked = Task { try await client.send("BLPOP", "queue", 0) }
                try await waitForBlockedClient(admin)
                let waiter = Task { try await client.send("PING") }
                waiter.cancel()
                await #expect(throws: CancellationError.self) { try await waiter.value }
                _ = try await admin.send("RPUSH", "queue", "job")
                #expect(try await blocked.value == .array([.string(Array("queue".utf8)), .string(Array("job".utf8))]))
                #expect(try await client.send("PING") == .status("PONG"))
            }
        }
    }

    @Test func shutdownFailsWaitersAndLetsRunningCommandsFinish() async throws {
        try await withRedisServer { server in
            var configuration = try server.configuration(poolSize: 1)
            configuration.commandTimeout = Self.blockingTimeout
            let client = RedisClient(configuration: configuration)
            try await withClient(try server.configuration(poolSize: 1)) { admin in
                let blocked = Task { try await client.send("BLPOP", "queue", 0) }
                try await waitForBlockedClient(admin)
                let waiter = Task { try await client.send("PING") }
                let shutdown = Task { await client.shutdown() }
                await #expect(throws: RedisError(code: .shutdown, message: "")) { try await waiter.value }
                _ = try await admin.send("RPUSH", "queue", "job")
                #expect(try await blocked.value.array?.count == 2)
                await shutdown.value
            }
        }
    }

    /// The read timeout of a client whose only connection a test holds in BLPOP: the 5 s of
    /// `LocalRedisServer.configuration` ended the BLPOP itself on a loaded CI machine
    /// (`connectionLost`: "Resource temporarily unavailable") before the test pushed.
    static let blockingTimeout = Duration.seconds(120)

    /// Waits until the server reports a client blocked in BLPOP, i.e. the pool's only
    /// connection is busy.
    private func waitForBlockedClient(_ admin: RedisClient) async throws {
        for _ in 0..<200 {
            if try await admin.send("INFO", "clients").string?.contains("blocked_clients:1") == true { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no client blocked in BLPOP")
    }

    @Test func callsAfterShutdownFail() async throws {
        try await withRedisServer { server in
            let client = RedisClient(configuration: try server.configuration())
            #expect(try await client.send("PING") == .status("PONG"))
            await client.shutdown()
            await #expect(throws: RedisError(code: .shutdown, message: "")) {
                try await client.send("PING")
            }
        }
    }
}
