/// The parts of a `redis://` URL, parsed by hand so every malformed piece gets its own message.
struct RedisURL {
    var host: String
    var port = 6379
    var username: String?
    var password: String?
    var database = 0

    init(_ url: String) throws(RedisError) {
        func invalid(_ why: String) -> RedisError {
            RedisError(code: .invalidConfiguration, message: "invalid Redis URL '\(Self.redacted(url))': \(why)")
        }
        let scheme = "redis://"
        guard url.hasPrefix(scheme) else {
            throw invalid(
                url.hasPrefix("rediss://")
                    ? "TLS is not supported by hiredis 0.14.1" : "expected redis://[:password@]host:port[/db]")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let user = credentials[..<colon]
                username = user.isEmpty ? nil : String(user)
                password = String(credentials[credentials.index(after: colon)...])
            } else {
                password = String(credentials)
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
        if let colon = rest.lastIndex(of: ":") {
            let portText = rest[rest.index(after: colon)...]
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw invalid("port '\(portText)' is not in 1...65535")
            }
            self.port = port
            rest = rest[..<colon]
        }
        guard !rest.isEmpty else { throw invalid("missing host") }
        host = String(rest)
    }

    /// The URL with any password replaced, so errors can be logged.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let schemeLength = url.hasPrefix("redis://") ? 8 : 0
        return String(url.prefix(schemeLength)) + "***" + String(url[at...])
    }
}
