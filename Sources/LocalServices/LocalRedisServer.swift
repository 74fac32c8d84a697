import Foundation
import Logging
import Processes
public import Redis
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real `redis-server` child process on a free loopback port, for tests, `iap-dev demo` and
/// `iap-dev dev up` (Debian's `redis-server`; production points `REDIS_URL` at a managed Redis).
///
/// Started with no persistence (`--save '' --appendonly no`), so a ``restart()`` comes back
/// empty on the same port: tests use it to check that clients reconnect. The binary is
/// `$REDIS_SERVER` or `redis-server` on the `PATH`. The process is terminated by ``stop()``
/// or, as a backstop, when the object is released. With ``TLS`` it listens with TLS only, for
/// the `rediss://` tests.
public final class LocalRedisServer: Sendable {
    public let port: Int
    /// `redis://127.0.0.1:<port>`, or `rediss://…` when the server speaks TLS.
    public var url: String { "\(tls == nil ? "redis" : "rediss")://127.0.0.1:\(port)" }
    /// Set when the server listens with TLS only (`--port 0 --tls-port <port>`).
    public let tls: TLS?

    /// A TLS-only server's certificate files (PEM), for tests of `rediss://`.
    public struct TLS: Sendable {
        public var certificateFile: String
        public var keyFile: String
        /// The CA the server checks client certificates against (`--tls-ca-cert-file`), also
        /// trusted by ``LocalRedisServer/configuration(poolSize:)``.
        public var caFile: String
        /// `--tls-auth-clients yes`: a client without a certificate from `caFile` is refused.
        public var requireClientCertificate: Bool
        /// Presented by the start-up probe and ``LocalRedisServer/configuration(poolSize:)``.
        public var clientCertificateFile: String?
        public var clientKeyFile: String?

        public init(
            certificateFile: String, keyFile: String, caFile: String, requireClientCertificate: Bool = false,
            clientCertificateFile: String? = nil, clientKeyFile: String? = nil
        ) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.caFile = caFile
            self.requireClientCertificate = requireClientCertificate
            self.clientCertificateFile = clientCertificateFile
            self.clientKeyFile = clientKeyFile
        }
    }

    private let child = Mutex<Child?>(nil)

    /// The running server.
    private struct Child {
        var process: ChildProcess
    }

    /// The running server's process id (benchmarks read its CPU time from `/proc`).
    public var pid: Int32? { child.withLock { $0?.process.pid } }

    /// Where the append-only file lives; nil runs without persistence.
    public let appendOnlyDirectory: String?
    /// The working directory of a server without persistence (``appendOnlyDirectory`` nil): a
    /// replica's full sync still writes `dump.rdb` there, and a server started there loads it.
    /// The process's own directory (the repository, for the tests) once collected one and served
    /// it to every later server; a directory of its own, emptied before each start, keeps
    /// ``restart()`` empty as documented.
    private let scratchDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("iap-redis-\(UUID().uuidString)").path
    /// Further `redis-server` options, appended to the ones this type sets.
    public let extraArguments: [String]

    private init(port: Int, appendOnlyDirectory: String?, tls: TLS?, extraArguments: [String]) {
        self.port = port
        self.appendOnlyDirectory = appendOnlyDirectory
        self.tls = tls
        self.extraArguments = extraArguments
    }

    /// Picks a free port and starts a server on it, retrying with another port if the
    /// chosen one was taken in between.
    ///
    /// - Parameter appendOnlyDirectory: persist every write to an append-only file there
    ///   (`appendfsync always`), so ``restart()`` keeps the data, as a production Redis with AOF
    ///   does; nil keeps nothing on disk.
    /// - Parameter tls: listen with TLS only, with these certificates.
    /// - Parameter extraArguments: further options, e.g. `["--databases", "4096"]` for a server
    ///   that many tests share, each in a database of its own.
    public static func start(
        appendOnlyDirectory: String? = nil, tls: TLS? = nil, extraArguments: [String] = []
    ) async throws -> LocalRedisServer {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let server = LocalRedisServer(
                port: try freeLoopbackPort(), appendOnlyDirectory: appendOnlyDirectory, tls: tls,
                extraArguments: extraArguments)
            do {
                try await server.launch()
                return server
            } catch {
                server.stop()
                lastError = error
            }
        }
        throw lastError ?? LocalRedisServerError(message: "redis-server did not start")
    }

    /// Kills the server and waits for it to exit. Idempotent.
    ///
    /// SIGKILL: nothing is lost without persistence, and with AOF (`appendfsync always`) every
    /// acknowledged write is on disk already. The exit is seen by ``ChildProcess``'s own
    /// `waitpid` thread, so this blocks the caller for milliseconds, not for the bound.
    public func stop() {
        child.withLock { child in
            guard let running = child else { return }
            running.process.crash()
            // A killed server exits at once; the bound only keeps a lost signal from hanging.
            _ = running.process.waitForExit(timeout: .seconds(10))
            child = nil
        }
    }

    /// Kills the server and starts it again on the same port: data is lost unless the server
    /// has an ``appendOnlyDirectory``.
    public func restart() async throws {
        stop()
        try await launch()
    }

    /// A configuration for this server with a small pool unless told otherwise.
    /// For a TLS server it trusts the server's CA and presents the client certificate, if any.
    public func configuration(poolSize: Int = 4) throws -> RedisConfiguration {
        try RedisConfiguration(
            url: url, poolSize: poolSize, connectTimeout: .seconds(1), commandTimeout: .seconds(5),
            tls: tls.map {
                RedisConfiguration.TLS(
                    caFile: $0.caFile, certificateFile: $0.clientCertificateFile, keyFile: $0.clientKeyFile)
            } ?? RedisConfiguration.TLS()
        )
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: scratchDirectory)
    }

    private func launch() async throws {
        let executable = try Self.executable()
        let persistence: [String]
        if let appendOnlyDirectory {
            persistence = ["--appendonly", "yes", "--appendfsync", "always", "--dir", appendOnlyDirectory]
        } else {
            try? FileManager.default.removeItem(atPath: scratchDirectory)
            try FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true)
            persistence = ["--appendonly", "no", "--dir", scratchDirectory]
        }
        let listen =
            tls.map { tls in
                [
                    "--port", "0", "--tls-port", String(port), "--tls-cert-file", tls.certificateFile,
                    "--tls-key-file", tls.keyFile, "--tls-ca-cert-file", tls.caFile,
                    "--tls-auth-clients", tls.requireClientCertificate ? "yes" : "no",
                ]
            } ?? ["--port", String(port)]
        let process: ChildProcess
        do {
            process = try ChildProcess(
                name: "redis-server", executable: executable,
                arguments: listen + ["--bind", "127.0.0.1", "--save", "", "--loglevel", "warning"] + persistence
                    + extraArguments,
                output: .discard)
        } catch {
            throw LocalRedisServerError(message: error.description)
        }
        child.withLock { $0 = Child(process: process) }
        try await waitForPing()
    }

    /// Polls with PING until the server answers; gives up after about five seconds.
    private func waitForPing() async throws {
        // Refused connections are expected while the server starts; keep them out of the test log.
        var quiet = Logger(label: "iap.redis.local-server")
        quiet.logLevel = .critical
        // Refused attempts are expected too: a fast, small backoff keeps the wait short.
        var probe = try configuration(poolSize: 1)
        probe.reconnect = RedisConfiguration.Reconnect(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(50))
        let client = RedisClient(configuration: probe, logger: quiet)
        var answered = false
        for _ in 0..<100 where !answered && child.withLock({ $0?.process.isRunning ?? false }) {
            answered = (try? await client.execute(PING())) == "PONG"
            if !answered { try? await Task.sleep(for: .milliseconds(50)) }
        }
        await client.shutdown()
        guard answered else { throw LocalRedisServerError(message: "redis-server on port \(port) did not answer PING") }
    }

    private static func executable() throws -> String {
        if let path = ProcessInfo.processInfo.environment["REDIS_SERVER"] { return path }
        do {
            return try ChildProcess.locate("redis-server")
        } catch {
            throw LocalRedisServerError(
                message: "redis-server not found on PATH (install redis-server or set REDIS_SERVER)")
        }
    }

    /// A loopback port nothing listens on, for a server a child process will bind later.
    ///
    /// Taken below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`) when there is
    /// room: an outgoing connection's source port always comes from that range, so the
    /// thousands of loopback connections a test run opens cannot take the port between this
    /// check and the child's `bind` (the end-to-end runs saw a worker die with "Address already
    /// in use" that way). Within this process a port is handed out once: stacks started side
    /// by side in one test process (in-process members, decision D47) pick dozens of ports
    /// between check and bind, where a birthday collision is likely. Another process picking
    /// the same port at random is the remaining, much smaller, chance. Without room below the
    /// range: the kernel's choice of port 0.
    public static func freeLoopbackPort() throws -> Int {
        let ephemeralStart = ephemeralPortRange().lowerBound
        if ephemeralStart > 12_000 {
            for _ in 0..<64 {
                let candidate = Int.random(in: 10_000..<ephemeralStart)
                guard handedOut.withLock({ $0.insert(candidate).inserted }) else { continue }
                if (try? bindLoopback(port: candidate)) == candidate { return candidate }
            }
        }
        return try bindLoopback(port: 0)
    }

    /// Waits until no listener holds `port` on 127.0.0.1 (a server's own bind would succeed): a
    /// listener may close its socket a moment after its task ended. True once free, false at
    /// `timeout`.
    public static func waitUntilFree(_ port: Int, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while (try? bindLoopback(port: port, reuseAddress: true)) != port {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Ports ``freeLoopbackPort()`` returned in this process (tens of thousands to choose from;
    /// a test process takes a few hundred).
    private static let handedOut = Mutex<Set<Int>>([])

    /// `/proc/sys/net/ipv4/ip_local_port_range`, Linux's default where it cannot be read.
    private static func ephemeralPortRange() -> ClosedRange<Int> {
        let fallback = 32_768...60_999
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        else { return fallback }
        let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return fallback }
        return bounds[0]...bounds[1]
    }

    /// Binds `port` on 127.0.0.1 (0: the kernel's choice), releases it, and returns the port.
    ///
    /// - Parameter reuseAddress: `SO_REUSEADDR`, as servers (NIO, redis-server) bind: connections
    ///   in TIME_WAIT on the port then do not count, only a listener does.
    private static func bindLoopback(port: Int, reuseAddress: Bool = false) throws -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw LocalRedisServerError(message: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        if reuseAddress {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw LocalRedisServerError(message: "could not bind a loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why the local Redis server could not be started.
public struct LocalRedisServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
