internal import COpenSSL

/// The client's OpenSSL `SSL_CTX`: trust store, client certificate, TLS 1.2 at least, peer
/// verification on. Built once per ``RedisClient`` and shared by its connections.
///
/// `@unchecked Sendable` invariant: the context is configured only in `init`; afterwards it is
/// only passed to `SSL_new`, which OpenSSL allows from any thread at once.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    init(_ options: RedisConfiguration.TLS) throws(RedisError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw Self.invalid("could not create an OpenSSL context")
        }
        self.context = context
        guard copenssl_set_min_tls12(context) == 1 else { throw Self.invalid("could not require TLS 1.2") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile = options.caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw Self.invalid("CA file '\(caFile)' could not be loaded")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw Self.invalid("the system CA store could not be loaded")
            }
        }
        if let certificateFile = options.certificateFile, let keyFile = options.keyFile {
            guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
                throw Self.invalid("client certificate '\(certificateFile)' could not be loaded")
            }
            guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
                throw Self.invalid("client key '\(keyFile)' could not be loaded")
            }
            guard SSL_CTX_check_private_key(context) == 1 else {
                throw Self.invalid("client key '\(keyFile)' does not match certificate '\(certificateFile)'")
            }
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    private static func invalid(_ what: String) -> RedisError {
        RedisError(code: .invalidConfiguration, message: "TLS: \(what)\(openSSLErrors())")
    }

    /// OpenSSL's queued error reasons (this thread's), as `: reason; reason`, emptying the queue.
    static func openSSLErrors() -> String {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
    }
}
