public import AsyncHTTPClient
import NIOCore

/// The HTTP client verify and reconcile call Apple with, for the life of the process (never shut down,
/// so it is never deinitialised while requests may still run).
///
/// AsyncHTTPClient's shared client opens at most 8 HTTP/1.1 connections per host; with
/// 256 records in flight and Apple answering in ~200 ms that capped a verify worker at
/// ~40 lookups/s (`iap-dev bench e2e --bare-ids --apple-latency 200`). Apple's API speaks HTTP/2,
/// which multiplexes, but a proxy or the simulator may not. A short connect timeout keeps an
/// unreachable endpoint (or OCSP responder) from holding a record for the request timeout.
public enum AppleHTTPClient {
    public static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 512)
        configuration.timeout = .init(connect: .seconds(5))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}
