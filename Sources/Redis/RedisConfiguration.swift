/// Where and how ``RedisClient`` connects: `redis://[[username]:password@]host[:port][/db]`, or
/// `rediss://…` for TLS (port 6379 and database 0 when omitted). User name and password are
/// %-decoded, so a password may hold `@`, `:` or `/` written as `%40`, `%3A`, `%2F`.
///
/// The driver reads no environment: the processes' keys (`REDIS_URL`, `REDIS_POOL_SIZE`, the
/// timeouts, the TLS files, the reconnect delays) and their defaults are the runtime's
/// `RedisSettings`. A command that times out kills its connection (hiredis cannot resynchronise).
public struct RedisConfiguration: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// Sent as `AUTH [username] password` on every new connection: a Redis 6 ACL user when
    /// `username` is set, the `default` user (`requirepass`) otherwise.
    public var username: String?
    public var password: String?
    /// Selected with `SELECT` on every new connection when not 0.
    public var database: Int
    /// How many connections are opened; concurrent calls share them through pipelining.
    public var poolSize: Int
    /// Bounds the TCP connect and, for TLS, the handshake too.
    public var connectTimeout: Duration
    /// Bounds each wait for the socket while a command is written or its reply read.
    public var commandTimeout: Duration
    /// Set for `rediss://` URLs: the connection is TLS and the server's certificate is verified.
    public var tls: TLS?
    /// How soon a failed connection is tried again.
    public var reconnect: Reconnect
    /// A call joins a connection whose round trip went out less than this long ago, and leaves
    /// with its next batch, rather than waking an idle one: every round trip costs both processes
    /// their system calls and thread wake-ups, ~65 µs of CPU on a loaded two-core machine, which
    /// a command joining a batch does not (decision D72). A round trip older than this is taken
    /// for a slow one (a long script), and calls go to another connection instead.
    package var joinWindow: Duration = .milliseconds(5)

    /// TLS options of a `rediss://` connection. The server's certificate is always verified,
    /// against `caFile` or the system's CA store, and must be issued for `serverName` (or the
    /// URL's host), which is also sent as SNI.
    public struct TLS: Sendable, Hashable {
        /// PEM file of the CA certificates to trust instead of the system store.
        public var caFile: String?
        /// PEM certificate (chain) presented to servers that ask for one (`tls-auth-clients`).
        public var certificateFile: String?
        /// PEM private key of `certificateFile`.
        public var keyFile: String?
        /// The name the certificate must be issued for and SNI sends, when it differs from the
        /// URL's host (connecting by address, or through a proxy).
        public var serverName: String?

        public init(
            caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, serverName: String? = nil
        ) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.serverName = serverName
        }

        var isEmpty: Bool { self == TLS() }
    }

    /// Capped exponential backoff, shared by all of a client's connections: after the n-th
    /// failed attempt in a row the next waits `initialDelay · 2^(n-1)`, at most `maximumDelay`,
    /// with jitter taking up to half of it off (so replicas do not retry in step).
    public struct Reconnect: Sendable, Hashable {
        public var initialDelay: Duration
        public var maximumDelay: Duration

        public init(initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(30)) {
            self.initialDelay = initialDelay
            self.maximumDelay = max(initialDelay, maximumDelay)
        }

        /// The delay before the next attempt after `failures` failed ones in a row, before jitter.
        public func delay(afterFailures failures: Int) -> Duration {
            guard failures > 0 else { return .zero }
            var delay = initialDelay
            for _ in 1..<min(failures, 63) where delay < maximumDelay { delay *= 2 }
            return min(delay, maximumDelay)
        }
    }

    /// - Parameter tls: used only by a `rediss://` URL; options with a `redis://` URL are refused,
    ///   since they would be silently ignored.
    public init(
        url: String,
        poolSize: Int = 8,
        connectTimeout: Duration = .seconds(2),
        commandTimeout: Duration = .seconds(5),
        tls: TLS = TLS(),
        reconnect: Reconnect = Reconnect()
    ) throws(RedisError) {
        let parsed = try RedisURL(url)
        guard poolSize > 0 else {
            throw RedisError(code: .invalidConfiguration, message: "pool size must be positive, got \(poolSize)")
        }
        guard parsed.isTLS || tls.isEmpty else {
            throw RedisError(
                code: .invalidConfiguration,
                message: "TLS options (CA file, client certificate, server name) need a rediss:// URL")
        }
        guard (tls.certificateFile == nil) == (tls.keyFile == nil) else {
            throw RedisError(
                code: .invalidConfiguration, message: "a TLS client certificate needs both its certificate and key file"
            )
        }
        self.host = parsed.host
        self.port = parsed.port
        self.username = parsed.username
        self.password = parsed.password
        self.database = parsed.database
        self.poolSize = poolSize
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.tls = parsed.isTLS ? tls : nil
        self.reconnect = reconnect
    }

    /// The target without credentials, safe to log.
    public var description: String {
        let credentials = password == nil ? "" : "\(username ?? ""):***@"
        let scheme = tls == nil ? "redis" : "rediss"
        return "\(scheme)://\(credentials)\(host):\(port)/\(database) (pool \(poolSize))"
    }
}
