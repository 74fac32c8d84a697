import Basics

/// The parts of a `redis://` or `rediss://` URL, parsed by hand so every malformed piece gets
/// its own message.
struct RedisURL {
    var host: String
    var port = 6379
    /// `rediss://`: the connection is TLS.
    var isTLS = false
    var username: String?
    var password: String?
    var database = 0

    init(_ url: String) throws(RedisError) {
        func invalid(_ why: String) -> RedisError {
            RedisError(code: .invalidConfiguration, message: "invalid Redis URL '\(Self.redacted(url))': \(why)")
        }
        let scheme: String
        if url.hasPrefix("redis://") {
            scheme = "redis://"
        } else if url.hasPrefix("rediss://") {
            scheme = "rediss://"
            isTLS = true
        } else {
            throw invalid("expected redis:// or rediss://[[user]:password@]host[:port][/db]")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let user = credentials[..<colon]
                guard let decodedUser = percentDecoded(user) else {
                    throw invalid("the user name has an invalid %-escape (write a literal % as %25)")
                }
                username = decodedUser.isEmpty ? nil : decodedUser
                password = percentDecoded(credentials[credentials.index(after: colon)...])
            } else {
                password = percentDecoded(credentials)
            }
            guard password != nil else {
                throw invalid("the password has an invalid %-escape (write a literal % as %25)")
            }
        }
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard let db = Int(path), db >= 0 else {
                    throw invalid("database '\(path)' is not a non-negative integer")
                }
                database = db
            }
        }
        if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
            let portText = rest[rest.index(after: colon)...]
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw invalid("port '\(portText)' is not in 1...65535")
            }
            self.port = port
            rest = rest[..<colon]
        }
        // `[::1]`: an IPv6 literal in brackets, as URLs write it.
        if rest.hasPrefix("["), rest.hasSuffix("]") { rest = rest.dropFirst().dropLast() }
        guard !rest.isEmpty else { throw invalid("missing host") }
        host = String(rest)
    }

    /// The URL with any password replaced, so errors can be logged.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let schemeLength = url.hasPrefix("redis://") ? 8 : url.hasPrefix("rediss://") ? 9 : 0
        return String(url.prefix(schemeLength)) + "***" + String(url[at...])
    }
}
