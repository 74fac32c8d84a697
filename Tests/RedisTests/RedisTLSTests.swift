import Foundation
import LocalServices
import Redis
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `rediss://` against a real `redis-server --port 0 --tls-port …`, with certificates made at
/// test time.
@Suite(.timeLimit(.minutes(2))) struct RedisTLSTests {
    let files: TestTLSFiles

    init() throws {
        files = try TestTLSFiles()
    }

    /// A TLS-only server with the test certificates; stopped (and the files removed) afterwards.
    private func withTLSServer(
        requireClientCertificate: Bool = false, _ body: (LocalRedisServer) async throws -> Void
    ) async throws {
        defer { files.remove() }
        let server = try await LocalRedisServer.start(
            tls: LocalRedisServer.TLS(
                certificateFile: files.serverCertificateFile, keyFile: files.serverKeyFile, caFile: files.caFile,
                requireClientCertificate: requireClientCertificate,
                clientCertificateFile: requireClientCertificate ? files.clientCertificateFile : nil,
                clientKeyFile: requireClientCertificate ? files.clientKeyFile : nil))
        defer { server.stop() }
        try await body(server)
    }

    private func configuration(_ server: LocalRedisServer, host: String = "127.0.0.1", _ tls: RedisConfiguration.TLS)
        throws -> RedisConfiguration
    {
        try RedisConfiguration(
            url: "rediss://\(host):\(server.port)", poolSize: 1, connectTimeout: .seconds(5),
            commandTimeout: .seconds(5), tls: tls,
            reconnect: RedisConfiguration.Reconnect(initialDelay: .milliseconds(1), maximumDelay: .milliseconds(1)))
    }

    @Test func roundTripOverTLSVerifiedByAddress() async throws {
        try await withTLSServer { server in
            #expect(server.url.hasPrefix("rediss://"))
            try await withClient(try configuration(server, RedisConfiguration.TLS(caFile: files.caFile))) {
                client throws in
                _ = try await client.send("SET", "k", .bytes([0, 1, 2, 255]))
                #expect(try await client.send("GET", "k") == .string([0, 1, 2, 255]))
                let replies = try await client.pipeline((0..<50).map { ["INCR", .string("n\($0 % 3)")] })
                #expect(replies.count == 50)
                // A reply much bigger than one TLS record and the read buffer.
                let big = [UInt8](repeating: 7, count: 300_000)
                _ = try await client.send("SET", "big", .bytes(big))
                #expect(try await client.send("GET", "big") == .string(big))
            }
        }
    }

    @Test func serverNameIsSentAndChecked() async throws {
        try await withTLSServer { server in
            let tls = RedisConfiguration.TLS(caFile: files.caFile, serverName: "localhost")
            try await withClient(try configuration(server, tls)) { client throws in
                #expect(try await client.send("PING") == .status("PONG"))
            }
        }
    }

    @Test func untrustedCAIsAVerificationError() async throws {
        try await withTLSServer { server in
            try await withClient(try configuration(server, RedisConfiguration.TLS(caFile: files.otherCAFile))) {
                client throws in
                _ = await #expect {
                    try await client.send("PING")
                } throws: { error in
                    let error = try #require(error as? RedisError)
                    return error.code == .tlsVerificationFailed
                        && error.message.contains("not accepted for '127.0.0.1'")
                }
            }
        }
    }

    @Test func systemStoreDoesNotTrustTheTestCA() async throws {
        try await withTLSServer { server in
            try await withClient(try configuration(server, RedisConfiguration.TLS())) { client throws in
                _ = await #expect(throws: RedisError(code: .tlsVerificationFailed, message: "")) {
                    try await client.send("PING")
                }
            }
        }
    }

    @Test func hostNameMismatchIsRefused() async throws {
        try await withTLSServer { server in
            let tls = RedisConfiguration.TLS(caFile: files.caFile, serverName: "redis.example.org")
            try await withClient(try configuration(server, tls)) { client throws in
                _ = await #expect {
                    try await client.send("PING")
                } throws: { error in
                    let error = try #require(error as? RedisError)
                    return error.code == .tlsVerificationFailed && error.message.contains("hostname mismatch")
                        && error.message.contains("redis.example.org")
                }
            }
        }
    }

    @Test func clientCertificateWhenTheServerRequiresOne() async throws {
        try await withTLSServer(requireClientCertificate: true) { server in
            let withCertificate = RedisConfiguration.TLS(
                caFile: files.caFile, certificateFile: files.clientCertificateFile, keyFile: files.clientKeyFile)
            try await withClient(try configuration(server, withCertificate)) { client throws in
                #expect(try await client.send("PING") == .status("PONG"))
            }
            try await withClient(try configuration(server, RedisConfiguration.TLS(caFile: files.caFile))) {
                client throws in
                _ = await #expect(throws: RedisError(code: .tlsHandshakeFailed, message: "")) {
                    try await client.send("PING")
                }
            }
        }
    }

    @Test func unreadableCAFileIsAConfigurationError() async throws {
        try await withTLSServer { server in
            let tls = RedisConfiguration.TLS(caFile: files.directory + "/missing.pem")
            try await withClient(try configuration(server, tls)) { client throws in
                _ = await #expect {
                    try await client.send("PING")
                } throws: { error in
                    let error = try #require(error as? RedisError)
                    return error.code == .invalidConfiguration && error.message.contains("missing.pem")
                }
            }
        }
    }

    @Test func aclUserOverTLS() async throws {
        try await withTLSServer { server in
            try await withClient(try server.configuration(poolSize: 1)) { admin in
                _ = try await admin.send("ACL", "SETUSER", "worker", "on", ">s3cret", "~*", "&*", "+@all")
            }
            let url = "rediss://worker:s3cret@127.0.0.1:\(server.port)/2"
            let configuration = try RedisConfiguration(
                url: url, poolSize: 1, tls: RedisConfiguration.TLS(caFile: files.caFile))
            try await withClient(configuration) { client throws in
                #expect(try await client.send("ACL", "WHOAMI") == .string(Array("worker".utf8)))
                #expect(try await client.send("CLIENT", "INFO").string?.contains("db=2") == true)
            }
        }
    }

    /// A listener that accepts TCP but never answers the handshake: the connect timeout
    /// must still end the attempt.
    @Test func connectTimeoutBoundsTheHandshake() async throws {
        defer { files.remove() }
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && getsockname(listener, socketAddress, &length) == 0
                    && listen(listener, 8) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let configuration = try RedisConfiguration(
            url: "rediss://127.0.0.1:\(port)", poolSize: 1, connectTimeout: .milliseconds(300),
            tls: RedisConfiguration.TLS(caFile: files.caFile))
        try await withClient(configuration) { client throws in
            _ = await #expect {
                try await client.send("PING")
            } throws: { error in
                let error = try #require(error as? RedisError)
                return error.code == .connectionFailed && error.message.contains("timed out")
            }
        }
    }
}
