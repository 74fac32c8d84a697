/// Where and how ``RedisClient`` connects.
///
/// ## Configuration keys
/// ``init(environment:)`` reads these (the names workers document for operators):
/// - `REDIS_URL`: `redis://[[username]:password@]host[:port][/db]`, required. Port defaults
///   to 6379, database to 0. There is no `rediss://`: hiredis 0.14.1 has no TLS.
/// - `REDIS_POOL_SIZE`: connections, each with its own thread, default 8. Concurrent commands
///   are pipelined on them, so a few connections carry hundreds of callers.
/// - `REDIS_CONNECT_TIMEOUT_MS`: TCP connect timeout, default 2000.
/// - `REDIS_COMMAND_TIMEOUT_MS`: socket read/write timeout per command, default 5000.
///   A command that times out kills its connection (hiredis cannot resynchronise).
public struct RedisConfiguration: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// Sent as `AUTH [username] password` on every new connection.
    public var username: String?
    public var password: String?
    /// Selected with `SELECT` on every new connection when not 0.
    public var database: Int
    /// How many connections are opened; concurrent calls share them through pipelining.
    public var poolSize: Int
    public var connectTimeout: Duration
    public var commandTimeout: Duration

    public init(
        url: String,
        poolSize: Int = 8,
        connectTimeout: Duration = .seconds(2),
        commandTimeout: Duration = .seconds(5)
    ) throws(RedisError) {
        let parsed = try RedisURL(url)
        guard poolSize > 0 else {
            throw RedisError(code: .invalidConfiguration, message: "pool size must be positive, got \(poolSize)")
        }
        self.host = parsed.host
        self.port = parsed.port
        self.username = parsed.username
        self.password = parsed.password
        self.database = parsed.database
        self.poolSize = poolSize
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
    }

    /// Reads the keys listed in the type's documentation.
    public init(environment: [String: String]) throws(RedisError) {
        guard let url = environment["REDIS_URL"] else {
            throw RedisError(code: .invalidConfiguration, message: "REDIS_URL is not set")
        }
        func integer(_ key: String, default value: Int) throws(RedisError) -> Int {
            guard let text = environment[key] else { return value }
            guard let parsed = Int(text) else {
                throw RedisError(code: .invalidConfiguration, message: "\(key) must be an integer, got '\(text)'")
            }
            return parsed
        }
        try self.init(
            url: url,
            poolSize: integer("REDIS_POOL_SIZE", default: 8),
            connectTimeout: .milliseconds(integer("REDIS_CONNECT_TIMEOUT_MS", default: 2000)),
            commandTimeout: .milliseconds(integer("REDIS_COMMAND_TIMEOUT_MS", default: 5000))
        )
    }

    /// The target without credentials, safe to log.
    public var description: String {
        let credentials = password == nil ? "" : "\(username ?? ""):***@"
        return "redis://\(credentials)\(host):\(port)/\(database) (pool \(poolSize))"
    }
}
