import Foundation
public import Redis

/// A marker in Redis that says whether Redis still holds what a stage's workers wrote there.
///
/// Written once (`SET NX`) after a stage's state was built or rebuilt; a worker remembers the
/// value it started under. A missing or different marker means Redis lost its data since (a
/// failover to an asynchronously replicated replica, a restart without AOF, a `FLUSHALL`), or
/// another replica already rebuilt after such a loss.
public struct StateGeneration: Sendable {
    private let client: RedisClient
    /// `iap:generation:{<stage>}`.
    public let key: String

    public init(client: RedisClient, stage: String) {
        self.client = client
        key = "iap:generation:{\(stage)}"
    }

    /// The marker, nil when Redis has none.
    public func current() async throws -> String? {
        try await client.send("GET", .string(key)).string
    }

    /// Writes a new marker unless one exists (another replica's rebuild) and returns the one held.
    public func establish() async throws -> String {
        let replies = try await client.pipeline([
            ["SET", .string(key), .string(UUID().uuidString), "NX"], ["GET", .string(key)],
        ])
        if case .error(let message) = replies[0] { throw RedisError(code: .server, message: message) }
        guard let held = replies[1].string else {
            throw RedisError(code: .unexpectedReply, message: "\(key): no marker after SET NX, got \(replies[1])")
        }
        return held
    }
}
