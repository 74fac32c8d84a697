import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection of a lane, connected lazily and replaced after any failure: a plain
/// hiredis `redisContext` (``HiredisWire``) for `redis://`, an OpenSSL session under hiredis'
/// protocol code (``TLSWire``) for `rediss://`.
///
/// Every method blocks and must be called from its ``CommandLane``'s thread, never from
/// Swift's cooperative pool (hiredis 0.14.1 is blocking and not thread-safe).
///
/// `@unchecked Sendable` invariant: only the owning lane's thread touches it, so `wire` is
/// never accessed concurrently.
final class RedisConnection: @unchecked Sendable {
    /// What all connections of one client share: the backoff and state log, and the TLS context.
    final class Shared: Sendable {
        let gate: ReconnectGate
        /// nil for `redis://`; a failure (unreadable CA file, key not matching the certificate)
        /// fails every attempt, through the gate, so it is logged once and paced like any other.
        let tls: Result<TLSContext, RedisError>?

        init(configuration: RedisConfiguration, logger: Logger) {
            self.gate = ReconnectGate(configuration: configuration, logger: logger)
            self.tls = configuration.tls.map { options in
                Result { () throws(RedisError) in try TLSContext(options) }
            }
        }
    }

    private let configuration: RedisConfiguration
    private let shared: Shared
    private var wire: (any RedisWire)?

    init(configuration: RedisConfiguration, shared: Shared) {
        self.configuration = configuration
        self.shared = shared
    }

    /// Runs one command; error replies are returned as ``RedisReply/error(_:)``, not thrown.
    func execute(_ command: [RedisValue]) throws(RedisError) -> RedisReply {
        try execute(pipeline: [command])[0]
    }

    /// Writes every command at once, then reads the replies in order: N commands cost one
    /// round trip. A socket failure drops the connection; the next call reconnects.
    func execute(pipeline commands: [[RedisValue]]) throws(RedisError) -> [RedisReply] {
        let wire = try connected()
        let replies: [RedisReply]
        do {
            replies = try wire.execute(pipeline: commands)
        } catch {
            self.wire = nil
            shared.gate.lost(error)
            throw error
        }
        // A failover demoted this server and it kept our connection: leave it, so the next
        // command reconnects through the endpoint, which now leads to the new master.
        if replies.contains(where: \.isReadOnlyError) {
            self.wire = nil
            shared.gate.lost(
                RedisError(code: .server, message: "READONLY: the server is a replica now; reconnecting"))
        }
        return replies
    }

    /// Closes the socket; the next command reconnects.
    func close() {
        wire = nil
    }

    /// The live connection, or a new one (with AUTH and SELECT) when the gate allows an
    /// attempt; sleeps when the next attempt is due soon, throws when it is not.
    private func connected() throws(RedisError) -> any RedisWire {
        if let wire { return wire }
        while true {
            switch shared.gate.permission() {
            case .attempt:
                do {
                    let fresh = try open()
                    try handshake(fresh)
                    wire = fresh
                    shared.gate.connected()
                    return fresh
                } catch {
                    shared.gate.failed(error)
                    throw error
                }
            case .wait(let delay):
                // The lane's own thread, not the cooperative pool: sleeping here is allowed.
                let (seconds, attoseconds) = delay.components
                var interval = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
                var remaining = timespec()
                while nanosleep(&interval, &remaining) != 0 && errno == EINTR { interval = remaining }
            case .refuse(let error):
                throw error
            }
        }
    }

    private func open() throws(RedisError) -> any RedisWire {
        switch shared.tls {
        case nil: return try HiredisWire.connect(configuration)
        case .success(let context): return try TLSWire.connect(configuration, context: context)
        case .failure(let error): throw error
        }
    }

    /// `AUTH` and `SELECT` in one round trip. A TLS connection with neither sends `PING`, so a
    /// server refusing our client certificate (TLS 1.3 tells only on the first read) fails
    /// the connection attempt rather than a caller's command.
    private func handshake(_ wire: any RedisWire) throws(RedisError) {
        var commands: [[RedisValue]] = []
        if let password = configuration.password {
            let user: [RedisValue] = configuration.username.map { [.string($0)] } ?? []
            commands.append(["AUTH"] + user + [.string(password)])
        }
        if configuration.database != 0 {
            commands.append(["SELECT", .integer(Int64(configuration.database))])
        }
        if commands.isEmpty && configuration.tls != nil { commands.append(["PING"]) }
        guard !commands.isEmpty else { return }
        let replies: [RedisReply]
        do {
            replies = try wire.execute(pipeline: commands)
        } catch {
            throw error.code == .connectionLost ? RedisError(code: .connectionFailed, message: error.message) : error
        }
        var index = 0
        if configuration.password != nil {
            if case .error(let message) = replies[0] {
                let user = configuration.username.map { " as user '\($0)'" } ?? ""
                throw RedisError(code: .authenticationFailed, message: "AUTH\(user) failed: \(message)")
            }
            index += 1
        }
        if configuration.database != 0, case .error(let message) = replies[index] {
            throw RedisError(code: .connectionFailed, message: "SELECT \(configuration.database) failed: \(message)")
        }
    }
}

extension RedisReply {
    /// `-READONLY You can't write against a read only replica.`
    fileprivate var isReadOnlyError: Bool {
        if case .error(let message) = self { return message.hasPrefix("READONLY") }
        return false
    }
}
