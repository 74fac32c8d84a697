import Contracts
import Foundation
import Pipeline
import Purchases
import Redis

/// What the Redis state stores share: JSON in and out, reply checks, TTL arguments and the
/// first-writer-wins write. Internal to the state stores.
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

    // MARK: Replies

    /// The bytes of a bulk-string reply, nil for a nil reply (no such key).
    static func bytes(_ reply: RedisReply, key: String) throws(RedisError) -> [UInt8]? {
        switch reply {
        case .null: return nil
        case .string(let bytes): return bytes
        default: throw RedisError(code: .unexpectedReply, message: "\(key): expected a string, got \(reply)")
        }
    }

    /// A bulk-string reply that must be present (scripts that always return a value).
    static func string(_ reply: RedisReply, key: String) throws(RedisError) -> String {
        guard case .string(let bytes) = reply else {
            throw RedisError(code: .unexpectedReply, message: "\(key): expected a string, got \(reply)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sends `commands` in one write and throws the first error reply: a store's writes either
    /// all succeed or the call fails (and the runtime retries; every write here is idempotent).
    @discardableResult
    static func pipeline(_ client: RedisClient, _ commands: [[RedisValue]]) async throws -> [RedisReply] {
        let replies = try await client.pipeline(commands)
        for case .error(let message) in replies {
            throw RedisError(code: .server, message: message)
        }
        return replies
    }

    /// Sends `commands` and, last in the same round trip, `GET` of the fence's marker (none
    /// without a fence): the replies to `commands`, and the marker's for
    /// ``GenerationFence/check(_:)`` when a decision would rest on a missing value.
    static func pipeline(_ client: RedisClient, _ commands: [[RedisValue]], fence: GenerationFence?) async throws
        -> (replies: [RedisReply], marker: RedisReply?)
    {
        guard let fence else { return (try await pipeline(client, commands), nil) }
        var replies = try await pipeline(client, commands + [["GET", .string(fence.key)]])
        let marker = replies.removeLast()
        return (replies, marker)
    }

    /// Runs `commands` as one `MULTI`/`EXEC` transaction in one round trip and returns their
    /// replies: other clients see all of the writes or none, and reads see one moment. Every
    /// key must be in one slot on a Redis Cluster; this project's Redis is one server (hiredis
    /// 0.14.1 has no cluster support), so keys of different entities may share a transaction.
    static func transaction(_ client: RedisClient, _ commands: [[RedisValue]]) async throws -> [RedisReply] {
        let replies = try await pipeline(client, [["MULTI"]] + commands + [["EXEC"]])
        guard let results = replies.last?.array, results.count == commands.count else {
            throw RedisError(
                code: .unexpectedReply,
                message: "EXEC: expected \(commands.count) replies, got \(replies.last.map { "\($0)" } ?? "none")")
        }
        for case .error(let message) in results {
            throw RedisError(code: .server, message: message)
        }
        return results
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
    static func set(_ key: String, _ value: RedisValue, ttl: Duration?) -> [RedisValue] {
        guard let ttl else { return ["SET", .string(key), value] }
        return ["SET", .string(key), value, "PX", .integer(milliseconds(ttl))]
    }

    /// `SET key value NX [PX ttl]`: a nil reply means the key held a value already.
    static func setIfAbsent(_ key: String, _ value: RedisValue, ttl: Duration?) -> [RedisValue] {
        var command: [RedisValue] = ["SET", .string(key), value, "NX"]
        if let ttl { command += ["PX", .integer(milliseconds(ttl))] }
        return command
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
        let setIfAbsent = setIfAbsent(key, .string(candidate), ttl: ttl)
        while true {
            let (replies, marker) = try await pipeline(client, [setIfAbsent, ["GET", .string(key)]], fence: fence)
            if let fence, let marker, replies[0] != .null { try fence.check(marker) }
            if let held = try bytes(replies[1], key: key) { return String(decoding: held, as: UTF8.self) }
            // The winner's value expired between the two commands: decide again.
        }
    }
}
