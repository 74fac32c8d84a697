import Contracts
import Foundation
import Pipeline
import Purchases
import Redis

/// What the Redis state stores share: JSON in and out, pipelines that fail as a whole, the
/// fenced read, TTL arguments and the first-writer-wins write. Internal to the state stores.
enum StateStorage {
    // MARK: JSON

    /// The pipeline's own event format (`EventEncoder`): compact, sorted keys.
    static func encodeEvent(_ event: some PipelineEvent) throws -> RedisValue {
        .bytes(try EventEncoder.encode(event))
    }

    /// The same format for stored values that are not events.
    static func encode(_ value: some Encodable) throws -> RedisValue {
        .bytes(try EventEncoder.encode(value: value))
    }

    /// Decodes a stored event, checking its `schema` as a reader of the topic would.
    static func decodeEvent<Event: PipelineEvent>(_ type: Event.Type, from bytes: [UInt8], key: String)
        throws(StateDecodingError) -> Event
    {
        do throws(Rejection) {
            return try EventDecoder.decode(type, from: bytes)
        } catch {
            throw StateDecodingError(key: key, expected: "\(type)", detail: error.detail)
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8], key: String)
        throws(StateDecodingError) -> Value
    {
        if let fast = type as? any FastJSONReadable.Type,
            let value = try? EventDecoder.read(fast, from: bytes) as? Value
        {
            return value
        }
        do {
            return try EventDecoder.decodeWithCodable(type, from: bytes)
        } catch {
            throw StateDecodingError(key: key, expected: "\(type)", detail: "\(error)")
        }
    }

    // MARK: Commands

    /// Sends `pipeline` in one write and throws the first error reply: a store's writes either
    /// all succeed or the call fails (and the runtime retries; every write here is idempotent).
    @discardableResult
    static func execute(_ client: RedisClient, _ pipeline: RedisPipeline) async throws -> RedisPipeline.Replies {
        try await client.execute(pipeline).throwingFirstError()
    }

    /// Appends `GET` of the fence's marker (nothing without a fence), last in the round trip,
    /// for ``GenerationFence/check(_:)`` when a decision would rest on a missing value.
    static func appendMarker(_ pipeline: inout RedisPipeline, fence: GenerationFence?) -> RedisPipeline.Slot<GET>? {
        fence.map { pipeline.append($0.read) }
    }

    /// `GET key`, and with a `fence` the marker in the same round trip, checked when the key
    /// holds nothing: an empty key may be a lost one.
    static func get(_ client: RedisClient, _ key: String, fence: GenerationFence?) async throws -> [UInt8]? {
        guard let fence else { return try await client.execute(GET(key)) }
        var pipeline = RedisPipeline(reservingCapacity: 2)
        let read = pipeline.append(GET(key))
        let marker = pipeline.append(fence.read)
        let replies = try await execute(client, pipeline)
        let value = try replies[read]
        if value == nil { try fence.check(try replies[marker]) }
        return value
    }

    /// Runs `pipeline` as one `MULTI`/`EXEC` transaction in one round trip and throws the first
    /// error reply: other clients see all of the writes or none, and reads see one moment. Every
    /// key must be in one slot on a Redis Cluster; this project's Redis is one server (hiredis
    /// 0.14.1 has no cluster support), so keys of different entities may share a transaction.
    static func transaction(_ client: RedisClient, _ pipeline: RedisPipeline) async throws -> RedisPipeline.Replies {
        try await client.transaction(pipeline).throwingFirstError()
    }

    // MARK: Expiry

    /// Whole milliseconds for `PX`/`PEXPIRE`, rounded up so a positive TTL never becomes 0;
    /// 0 stands for "no expiry" in the stores' scripts.
    static func milliseconds(_ ttl: Duration?) -> Int64 {
        guard let ttl else { return 0 }
        let (seconds, attoseconds) = ttl.components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    /// `SET key value [PX ttl]`.
    static func set(_ key: String, _ value: RedisValue, ttl: Duration?) -> SET {
        SET(key, value: value, expiration: ttl.map { .milliseconds(milliseconds($0)) })
    }

    /// `SET key value NX [PX ttl]`: false when the key held a value already.
    static func setIfAbsent(_ key: String, _ value: RedisValue, ttl: Duration?) -> SET {
        SET(key, value: value, condition: .nx, expiration: ttl.map { .milliseconds(milliseconds($0)) })
    }

    static func checkTTL(_ ttl: Duration?, _ name: String) {
        if let ttl { precondition(ttl > .zero, "\(name) must be positive (nil for no expiry)") }
    }

    // MARK: First writer wins

    /// Stores `candidate` unless `key` holds a value already, and returns the value held
    /// afterwards: `SET NX` decides atomically and the `GET` pipelined behind it reads the
    /// winner. Two plain commands in one round trip cost Redis a fraction of a script
    /// (decision D16). With a `fence`, a `SET` that found the key empty is checked against the
    /// marker read in the same round trip: an empty key may be a lost one.
    static func firstWins(
        _ client: RedisClient, key: String, candidate: String, ttl: Duration?, fence: GenerationFence? = nil
    ) async throws -> String {
        var pipeline = RedisPipeline(reservingCapacity: 3)
        let written = pipeline.append(setIfAbsent(key, .string(candidate), ttl: ttl))
        let read = pipeline.append(GET(key))
        let marker = appendMarker(&pipeline, fence: fence)
        while true {
            let replies = try await execute(client, pipeline)
            if let fence, let marker, try replies[written] { try fence.check(try replies[marker]) }
            if let held = try replies[read] { return String(decoding: held, as: UTF8.self) }
            // The winner's value expired between the two commands: decide again.
        }
    }
}
