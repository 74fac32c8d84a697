public import LocalServices
public import Redis

/// Runs `body` with a fresh server and stops it afterwards, whether `body` throws or not: for
/// tests that restart, stop or reconfigure the server, which must not do it to the shared one.
@discardableResult
public func withRedisServer<Result>(_ body: (LocalRedisServer) async throws -> Result) async throws -> Result {
    let server = try await LocalRedisServer.start()
    defer { server.stop() }
    return try await body(server)
}

/// Runs `body` with a database of its own on the process's shared server (``SharedRedis``),
/// for tests that only read and write keys. The database is left as the test left it: nothing
/// else uses it.
@discardableResult
public func withRedisDatabase<Result>(_ body: (TestRedisDatabase) async throws -> Result) async throws -> Result {
    guard let database = try await SharedRedis.database() else {
        // Every shared database taken: a private server, a database of its own all the same.
        return try await withRedisServer { server in
            try await body(TestRedisDatabase(server: server, database: 0))
        }
    }
    return try await body(database)
}

/// Runs `body` with a client of a database of its own on the process's shared server, shutting
/// the client down afterwards. Tests that restart, stop or reconfigure the server use
/// ``withPrivateRedisClient(poolSize:commandTimeout:_:)``.
@discardableResult
public func withRedisClient<Result>(
    poolSize: Int = 4, commandTimeout: Duration? = nil,
    _ body: (TestRedisDatabase, RedisClient) async throws -> Result
) async throws -> Result {
    try await withRedisDatabase { database in
        try await withClient(try database.configuration(poolSize: poolSize), commandTimeout: commandTimeout) {
            client in try await body(database, client)
        }
    }
}

/// Runs `body` with a fresh server and a client connected to it, shutting both down afterwards:
/// for tests that restart, stop or reconfigure the server.
@discardableResult
public func withPrivateRedisClient<Result>(
    poolSize: Int = 4, commandTimeout: Duration? = nil,
    _ body: (LocalRedisServer, RedisClient) async throws -> Result
) async throws -> Result {
    try await withRedisServer { server in
        try await withClient(try server.configuration(poolSize: poolSize), commandTimeout: commandTimeout) {
            client in try await body(server, client)
        }
    }
}

/// Runs `body` with a client for `configuration` (and `commandTimeout`, when given, instead of
/// its own) and shuts the client down afterwards, whether `body` throws or not.
@discardableResult
public func withClient<Result>(
    _ configuration: RedisConfiguration, commandTimeout: Duration? = nil,
    _ body: (RedisClient) async throws -> Result
) async throws -> Result {
    var configuration = configuration
    if let commandTimeout { configuration.commandTimeout = commandTimeout }
    let client = RedisClient(configuration: configuration)
    do {
        let result = try await body(client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}
