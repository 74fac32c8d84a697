/// Where and how ``RedisClient`` connects: `redis://[[username]:password@]host[:port][/db]`
/// (port 6379 and database 0 when omitted; no `rediss://`, hiredis 0.14.1 has no TLS).
///
/// The driver reads no environment: the processes' keys (`REDIS_URL`, `REDIS_POOL_SIZE`, the
/// timeouts) and their defaults are the runtime's `RedisSettings`. A command that times out
/// kills its connection (hiredis cannot resynchronise).
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

    /// The target without credentials, safe to log.
    public var description: String {
        let credentials = password == nil ? "" : "\(username ?? ""):***@"
        return "redis://\(credentials)\(host):\(port)/\(database) (pool \(poolSize))"
    }
}
