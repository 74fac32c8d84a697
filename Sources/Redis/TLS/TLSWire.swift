internal import CHiredis
internal import COpenSSL

#if canImport(Glibc)
import Glibc

private let systemSocket = Glibc.socket
private let systemConnect = Glibc.connect
#elseif canImport(Darwin)
import Darwin

private let systemSocket = Darwin.socket
private let systemConnect = Darwin.connect
#endif

/// A `rediss://` connection: our own non-blocking socket and OpenSSL `SSL*`, with hiredis
/// still doing the protocol (commands formatted by `RESPRequest`, replies parsed
/// by a `redisReader`), since hiredis 0.14.1 cannot put TLS under its `redisContext`.
///
/// The connect timeout bounds TCP connect and handshake together; the command timeout bounds
/// each wait for the socket, as `redisSetTimeout` does for plain connections.
///
/// Not `Sendable`: only its lane's thread ever holds one.
final class TLSWire: RedisWire {
    private let socket: Int32
    private let ssl: OpaquePointer
    private let reader: UnsafeMutablePointer<redisReader>
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
    private let target: String
    private let commandTimeout: Duration
    /// `SSL_shutdown` (a `close_notify` to the server) only after a finished handshake, and
    /// never after a fatal OpenSSL error.
    private var isBroken = true
    /// A TLS 1.3 server checks the client's certificate after the client's side of the
    /// handshake is done, so a refusal arrives as the first read's error.
    private var hasRead = false
    /// Whether we have a client certificate to offer, for the hint on an early refusal.
    private let presentsCertificate: Bool

    private init(
        socket: Int32, ssl: OpaquePointer, reader: UnsafeMutablePointer<redisReader>, target: String,
        commandTimeout: Duration, presentsCertificate: Bool
    ) {
        self.presentsCertificate = presentsCertificate
        self.socket = socket
        self.ssl = ssl
        self.reader = reader
        self.target = target
        self.commandTimeout = commandTimeout
    }

    deinit {
        if !isBroken { _ = SSL_shutdown(ssl) }
        SSL_free(ssl)
        close(socket)
        redisReaderFree(reader)
        buffer.deallocate()
    }

    /// Connects, handshakes and verifies the server's certificate for `tls.serverName` or the
    /// URL's host, all within the connect timeout.
    static func connect(_ configuration: RedisConfiguration, context: TLSContext) throws(RedisError) -> TLSWire {
        do {
            return try open(configuration, context: context)
        } catch {
            // A timeout while connecting is a failed attempt, not a lost connection.
            throw error.code == .connectionLost ? RedisError(code: .connectionFailed, message: error.message) : error
        }
    }

    private static func open(_ configuration: RedisConfiguration, context: TLSContext) throws(RedisError) -> TLSWire {
        let target = "\(configuration.host):\(configuration.port)"
        let deadline = ContinuousClock.now + configuration.connectTimeout
        let socket = try openSocket(host: configuration.host, port: configuration.port, until: deadline)
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else {
            close(socket)
            throw RedisError(code: .connectionFailed, message: "\(target): SSL_new failed\(TLSContext.openSSLErrors())")
        }
        guard let reader = redisReaderCreate() else {
            SSL_free(ssl)
            close(socket)
            throw RedisError(code: .connectionFailed, message: "\(target): hiredis could not allocate a reader")
        }
        let wire = TLSWire(
            socket: socket, ssl: ssl, reader: reader, target: target, commandTimeout: configuration.commandTimeout,
            presentsCertificate: configuration.tls?.certificateFile != nil)
        try wire.handshake(serverName: configuration.tls?.serverName ?? configuration.host, until: deadline)
        return wire
    }

    func execute(pipeline commands: [[RedisValue]]) throws(RedisError) -> [RedisReply] {
        try write(RESPRequest.encode(commands))
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        while replies.count < commands.count {
            var raw: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &raw) == REDIS_OK else {
                isBroken = true
                let reason = withUnsafeBytes(of: reader.pointee.errstr) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                throw RedisError(code: .connectionLost, message: "\(target): \(reason)")
            }
            if let raw {
                replies.append(RedisReply(raw.assumingMemoryBound(to: redisReply.self)))
                freeReplyObject(raw)
                continue
            }
            ERR_clear_error()
            let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
            if count > 0 {
                hasRead = true
                guard
                    redisReaderFeed(reader, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), Int(count))
                        == REDIS_OK
                else {
                    isBroken = true
                    throw RedisError(code: .connectionLost, message: "\(target): hiredis reader refused input")
                }
                continue
            }
            try waitOrFail(SSL_get_error(ssl, count), doing: "reading")
        }
        return replies
    }

    // MARK: Connecting

    private func handshake(serverName: String, until deadline: ContinuousClock.Instant) throws(RedisError) {
        _ = SSL_set_fd(ssl, socket)
        _ = copenssl_set_modes(ssl)
        if Self.isIPAddress(serverName) {
            // SNI carries host names only; an address is checked against the IP SANs.
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
        } else {
            _ = copenssl_set_sni(ssl, serverName)
            _ = SSL_set1_host(ssl, serverName)
        }
        while true {
            ERR_clear_error()
            let result = SSL_connect(ssl)
            if result == 1 {
                isBroken = false
                return
            }
            let error = SSL_get_error(ssl, result)
            let savedErrno = errno
            switch error {
            case SSL_ERROR_WANT_READ:
                try Self.wait(socket, for: Int16(POLLIN), until: deadline, target: target, doing: "the TLS handshake")
            case SSL_ERROR_WANT_WRITE:
                try Self.wait(socket, for: Int16(POLLOUT), until: deadline, target: target, doing: "the TLS handshake")
            default:
                isBroken = true
                let verification = SSL_get_verify_result(ssl)
                if verification != Int(X509_V_OK) {
                    let reason = String(cString: X509_verify_cert_error_string(verification))
                    throw RedisError(
                        code: .tlsVerificationFailed,
                        message:
                            "\(target): the server's certificate was not accepted for '\(serverName)': \(reason)")
                }
                throw RedisError(
                    code: .tlsHandshakeFailed,
                    message: "\(target): TLS handshake failed: \(Self.reason(error, errno: savedErrno))")
            }
        }
    }

    /// A connected non-blocking socket to the first address of `host` that answers in time.
    private static func openSocket(host: String, port: Int, until deadline: ContinuousClock.Instant)
        throws(RedisError) -> Int32
    {
        let target = "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw RedisError(code: .connectionFailed, message: "\(target): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = RedisError(code: .connectionFailed, message: "\(target): no address")
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let address = entry?.pointee {
            entry = address.ai_next
            let fd = systemSocket(address.ai_family, streamType | closeOnExec, address.ai_protocol)
            guard fd >= 0 else {
                lastError = RedisError(
                    code: .connectionFailed, message: "\(target): \(String(cString: strerror(errno)))")
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            do throws(RedisError) {
                if systemConnect(fd, address.ai_addr, address.ai_addrlen) != 0 {
                    guard errno == EINPROGRESS else {
                        throw RedisError(
                            code: .connectionFailed, message: "\(target): \(String(cString: strerror(errno)))")
                    }
                    try wait(fd, for: Int16(POLLOUT), until: deadline, target: target, doing: "connecting")
                    var socketError: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length)
                    guard socketError == 0 else {
                        throw RedisError(
                            code: .connectionFailed, message: "\(target): \(String(cString: strerror(socketError)))")
                    }
                }
                var on: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<Int32>.size))
                return fd
            } catch {
                close(fd)
                lastError = error
            }
        }
        throw lastError
    }

    // MARK: I/O

    private func write(_ output: [UInt8]) throws(RedisError) {
        let failure: RedisError? = output.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                ERR_clear_error()
                let written = SSL_write(ssl, bytes.baseAddress! + offset, Int32(clamping: bytes.count - offset))
                if written > 0 {
                    offset += Int(written)
                    continue
                }
                do throws(RedisError) {
                    try waitOrFail(SSL_get_error(ssl, written), doing: "writing")
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Waits for the socket when OpenSSL asks to, or fails the wire.
    private func waitOrFail(_ error: Int32, doing: String) throws(RedisError) {
        let savedErrno = errno
        switch error {
        case SSL_ERROR_WANT_READ:
            try Self.wait(socket, for: Int16(POLLIN), until: .now + commandTimeout, target: target, doing: doing)
        case SSL_ERROR_WANT_WRITE:
            try Self.wait(socket, for: Int16(POLLOUT), until: .now + commandTimeout, target: target, doing: doing)
        default:
            isBroken = true
            let reason = "\(target): TLS \(doing) failed: \(Self.reason(error, errno: savedErrno))"
            guard hasRead else {
                // Refused before the server said anything: with TLS 1.3 the server checks our
                // certificate only after our side of the handshake, and its alert (or just a
                // reset) is the first thing we read or write into (see `hasRead`).
                let hint =
                    presentsCertificate
                    ? "the server closed the connection after the handshake; was the client certificate accepted?"
                    : "the server closed the connection after the handshake; does it require a client certificate?"
                throw RedisError(code: .tlsHandshakeFailed, message: "\(reason) (\(hint))")
            }
            throw RedisError(code: .connectionLost, message: reason)
        }
    }

    /// Polls until `events` or `deadline`; a timeout fails the wire, as hiredis' does.
    private static func wait(
        _ socket: Int32, for events: Int16, until deadline: ContinuousClock.Instant, target: String, doing: String
    ) throws(RedisError) {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else {
                throw RedisError(code: .connectionLost, message: "\(target): timed out \(doing)")
            }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            // Ready, or an error or hang-up the next OpenSSL call reports.
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw RedisError(code: .connectionLost, message: "\(target): poll: \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func reason(_ error: Int32, errno savedErrno: Int32) -> String {
        let queued = TLSContext.openSSLErrors()
        switch error {
        case SSL_ERROR_ZERO_RETURN: return "closed by the server"
        case SSL_ERROR_SYSCALL:
            let system = savedErrno == 0 ? "connection closed" : String(cString: strerror(savedErrno))
            return system + queued
        default: return queued.isEmpty ? "OpenSSL error \(error)" : String(queued.dropFirst(2))
        }
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, text, &address) == 1 || inet_pton(AF_INET6, text, &address) == 1
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
    #else
    private static let streamType = SOCK_STREAM
    private static let closeOnExec: Int32 = 0
    #endif
}
