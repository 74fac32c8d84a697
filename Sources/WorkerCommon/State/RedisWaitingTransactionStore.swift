public import AppStoreModels
public import Contracts
public import Purchases
public import Redis

/// ``WaitingTransactionStore`` in Redis: verified records match could not tie to a user yet,
/// kept until an order releases them or match gives up (decision D9).
///
/// Keys (``StateKeys``):
/// - `iap:wait:record:{<recordKey>}`: a hash with `since` (first-parked time, UNIX ms) and
///   `transaction` (the `iap.verified.v1` JSON). Created once by a one-key script, so parking
///   again (a delayed retry, a released record still without a user) keeps the first time.
/// - `iap:wait:index:{token:<uuid>}`, `iap:wait:index:{order:<orderId>}`: a set of the
///   recordKeys parked under that ``WaitKey``.
///
/// Expiry (default 8 days), so records whose retries were abandoned (a message dead-lettered,
/// a topic reset) never leak: a record expires `retention` after its *first* park, an index
/// `retention` after its *latest* park. Keep `retention` longer than match's wait window
/// (default 24 h): a record that expired while still being retried would be parked again with
/// a new first-parked time and wait a second window.
///
/// `release` reads and deletes an index in one script, so concurrent releases of one key
/// (two replicas consuming the same order twice) return each record once; it then reads the
/// records still present (a forgotten or expired one is skipped), first parked first. If
/// that read fails (or a record does not decode), the error propagates and the records stay
/// parked: their own delayed retries match them once the order is indexed. The record is
/// written before the indexes, so an index never names a record that was not stored; each
/// write is idempotent, so a failed `park` is simply retried.
public struct RedisWaitingTransactionStore: WaitingTransactionStore {
    /// 8 days.
    public static let defaultRetention: Duration = .seconds(8 * 24 * 3600)

    private let client: RedisClient
    public let keys: StateKeys
    public let retention: Duration

    public init(client: RedisClient, keys: StateKeys = .standard, retention: Duration = Self.defaultRetention) {
        StateStorage.checkTTL(retention, "waiting transaction retention")
        self.client = client
        self.keys = keys
        self.retention = retention
    }

    public func park(_ transaction: VerifiedTransaction, under waitKeys: [WaitKey], at now: Timestamp) async throws
        -> Timestamp
    {
        let recordKey = keys.waitingRecord(transaction.recordKey)
        let ttl = RedisValue.integer(StateStorage.milliseconds(retention))
        let reply = try await client.run(
            .parkWaitingRecord,
            keys: [recordKey],
            arguments: [.integer(now.millisecondsSince1970), try StateStorage.encodeEvent(transaction), ttl]
        )
        let since = try Self.since(reply, key: recordKey)
        let indexing: [[RedisValue]] = waitKeys.flatMap { waitKey -> [[RedisValue]] in
            let index = RedisValue.string(keys.waitingIndex(waitKey))
            return [["SADD", index, .string(transaction.recordKey)], ["PEXPIRE", index, ttl]]
        }
        if !indexing.isEmpty { try await StateStorage.pipeline(client, indexing) }
        return since
    }

    public func release(_ waitKey: WaitKey) async throws -> [VerifiedTransaction] {
        let index = keys.waitingIndex(waitKey)
        let reply = try await client.run(.takeWaitingIndex, keys: [index])
        guard let members = reply.array else {
            throw RedisError(code: .unexpectedReply, message: "\(index): expected an array, got \(reply)")
        }
        let recordKeys = try members.map { member throws(RedisError) in try StateStorage.string(member, key: index) }
        guard !recordKeys.isEmpty else { return [] }
        let replies = try await StateStorage.pipeline(
            client,
            recordKeys.map { recordKey in
                ["HMGET", .string(keys.waitingRecord(recordKey)), "since", "transaction"]
            })
        var released: [(since: Timestamp, recordKey: String, transaction: VerifiedTransaction)] = []
        for (recordKey, reply) in zip(recordKeys, replies) {
            let key = keys.waitingRecord(recordKey)
            guard let fields = reply.array, fields.count == 2 else {
                throw RedisError(code: .unexpectedReply, message: "\(key): expected two fields, got \(reply)")
            }
            // Forgotten (matched, rejected, given up on) or expired since it was indexed.
            guard let json = try StateStorage.bytes(fields[1], key: key) else { continue }
            let since = try Self.since(fields[0], key: key)
            released.append(
                (since, recordKey, try StateStorage.decodeEvent(VerifiedTransaction.self, from: json, key: key)))
        }
        // First parked first, as they arrived (a set has no order of its own).
        return released.sorted { ($0.since, $0.recordKey) < ($1.since, $1.recordKey) }.map(\.transaction)
    }

    public func forget(recordKey: String) async throws {
        _ = try await client.send("DEL", .string(keys.waitingRecord(recordKey)))
    }

    private static func since(_ reply: RedisReply, key: String) throws -> Timestamp {
        guard let text = try StateStorage.bytes(reply, key: key).map({ String(decoding: $0, as: UTF8.self) }),
            let milliseconds = Int64(text)
        else {
            throw StateDecodingError(key: key, expected: "first-parked time (UNIX ms)", detail: "found \(reply)")
        }
        return Timestamp(millisecondsSince1970: milliseconds)
    }
}

extension RedisScript {
    /// KEYS record; ARGV now ms, transaction JSON, ttl ms. Creates the record unless it
    /// exists; returns its first-parked time (a string of UNIX ms).
    fileprivate static let parkWaitingRecord = RedisScript(
        """
        local since = redis.call('HGET', KEYS[1], 'since')
        if since then
          return since
        end
        redis.call('HSET', KEYS[1], 'since', ARGV[1], 'transaction', ARGV[2])
        redis.call('PEXPIRE', KEYS[1], ARGV[3])
        return ARGV[1]
        """
    )

    /// KEYS index. Returns the set's members and deletes it, atomically.
    fileprivate static let takeWaitingIndex = RedisScript(
        """
        local members = redis.call('SMEMBERS', KEYS[1])
        redis.call('DEL', KEYS[1])
        return members
        """
    )
}
