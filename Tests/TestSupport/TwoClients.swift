import LocalServices
public import Redis

/// Runs `body` with two independent clients (separate pools, as two workers would have) on
/// one database of their own (``withRedisClient``).
public func withTwoClients(_ body: (RedisClient, RedisClient) async throws -> Void) async throws {
    try await withRedisClient { server, first in
        try await withClient(try server.configuration()) { second in
            try await body(first, second)
        }
    }
}

/// The server's clock in microseconds, to bound rates without trusting the test's clock.
public func serverMicroseconds(_ client: RedisClient) async throws -> Int64 {
    let parts = try await client.send("TIME").array?.compactMap(\.integer) ?? []
    guard parts.count == 2 else { throw RedisError(code: .unexpectedReply, message: "TIME") }
    return parts[0] * 1_000_000 + parts[1]
}
