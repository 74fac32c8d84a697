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
    /// `<prefix>generation:{<stage>}` (``Keyspace/generation(stage:)``).
    public let key: String

    public init(client: RedisClient, stage: String, keyspace: Keyspace = .standard) {
        self.client = client
        key = keyspace.generation(stage: stage)
    }

    /// The marker, nil when Redis has none.
    public func current() async throws -> String? {
        try await client.execute(GET(key)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes a new marker unless one exists (another replica's rebuild) and returns the one held.
    public func establish() async throws -> String {
        var pipeline = RedisPipeline()
        let written = pipeline.append(SET(key, value: .string(UUID().uuidString), condition: .nx))
        let read = pipeline.append(GET(key))
        let replies = try await client.execute(pipeline)
        _ = try replies[written]
        guard let held = try replies[read] else {
            throw RedisError(code: .unexpectedReply, message: "\(key): no marker after SET NX")
        }
        return String(decoding: held, as: UTF8.self)
    }
}
