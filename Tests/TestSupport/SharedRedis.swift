public import LocalServices
public import Redis
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A database of its own on the test process's shared `redis-server`: hard-coded keys of one
/// test cannot meet another test's.
public struct TestRedisDatabase: Sendable {
    /// Kept private: the server is shared, restarting or reconfiguring it is no test's to do.
    private let server: LocalRedisServer
    public let database: Int

    init(server: LocalRedisServer, database: Int) {
        self.server = server
        self.database = database
    }

    /// `redis://127.0.0.1:<port>/<database>`.
    public var url: String { "\(server.url)/\(database)" }

    /// The server's configuration (``LocalRedisServer/configuration(poolSize:)``) on this database.
    public func configuration(poolSize: Int = 4) throws -> RedisConfiguration {
        var configuration = try server.configuration(poolSize: poolSize)
        configuration.database = database
        return configuration
    }
}

/// One `redis-server` for the whole test process, started on first use, each user in a
/// database of its own.
///
/// A server per test was hundreds of child processes a run, each polled with PING until it
/// answered. Tests that change the server for everyone (restart or stop it, `FLUSHALL`,
/// `CONFIG SET`, `ACL SETUSER`, `SCRIPT FLUSH`, server-wide `INFO` counts, TLS, append-only)
/// keep ``withRedisServer(_:)`` or ``withPrivateRedisClient(poolSize:commandTimeout:_:)``.
public enum SharedRedis {
    /// `--databases`: far more than a test process takes (about a hundred); past it a test
    /// gets a private server instead of sharing a database.
    public static let databaseCount = 4096

    /// The next free database; 0 stays unused, as a client without `/<db>` would land there.
    private static let nextDatabase = Atomic<Int>(1)
    /// The server, once started: stopped at exit (a child of `posix_spawn` outlives its parent).
    private static let started = Mutex<LocalRedisServer?>(nil)

    private static let server = Task<LocalRedisServer, any Error> {
        let server = try await LocalRedisServer.start(extraArguments: ["--databases", String(databaseCount)])
        started.withLock { $0 = server }
        atexit { SharedRedis.stopAtExit() }
        return server
    }

    /// A fresh database on the shared server, or nil when every database is taken.
    public static func database() async throws -> TestRedisDatabase? {
        let database = nextDatabase.wrappingAdd(1, ordering: .relaxed).oldValue
        guard database < databaseCount else { return nil }
        let server = try await server.value
        return TestRedisDatabase(server: server, database: database)
    }

    private static func stopAtExit() {
        started.withLock { $0 }?.stop()
    }
}
