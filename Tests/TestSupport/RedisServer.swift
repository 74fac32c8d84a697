public import LocalServices
public import Redis

/// Runs `body` with a fresh server and stops it afterwards, whether `body` throws or not.
@discardableResult
public func withRedisServer<Result>(_ body: (LocalRedisServer) async throws -> Result) async throws -> Result {
    let server = try await LocalRedisServer.start()
    defer { server.stop() }
    return try await body(server)
}

/// Runs `body` with a server and a client connected to it, shutting both down afterwards.
@discardableResult
public func withRedisClient<Result>(
    poolSize: Int = 4, commandTimeout: Duration? = nil,
    _ body: (LocalRedisServer, RedisClient) async throws -> Result
) async throws -> Result {
    try await withRedisServer { server in
        var configuration = try server.configuration(poolSize: poolSize)
        if let commandTimeout { configuration.commandTimeout = commandTimeout }
        return try await withClient(configuration) { client in
            try await body(server, client)
        }
    }
}

/// Runs `body` with a client for `configuration` and shuts the client down afterwards,
/// whether `body` throws or not.
@discardableResult
public func withClient<Result>(
    _ configuration: RedisConfiguration,
    _ body: (RedisClient) async throws -> Result
) async throws -> Result {
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
