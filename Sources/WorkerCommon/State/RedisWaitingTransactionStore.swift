public import AppStoreModels
public import Contracts
public import Pipeline
public import Purchases
public import Redis

/// ``WaitingTransactionStore`` in Redis: verified records match could not tie to a user yet,
/// kept until an order releases them or match gives up (decision D9).
///
/// Keys (``Keyspace``):
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
/// `release` only reads: the index's members, then the records still present (an expired one
/// is skipped), first parked first. Nothing is taken, so an order that fails or dies between its
/// release and its produce releases the same records on its next delivery (decision D70); two
/// replicas consuming the same order both return them, and match's idempotency lock makes the
/// second copy of each a duplicate. `forget` deletes the record and, when there was one, removes
/// it from the indexes it was parked under; a set left empty is gone. The record is written before
/// the indexes, so an index never names a record that was not stored; each write is
/// idempotent, so a failed `park` is simply retried.
public struct RedisWaitingTransactionStore: WaitingTransactionStore {
    /// 8 days.
    public static let defaultRetention: Duration = .seconds(8 * 24 * 3600)

    private let client: RedisClient
    public let keys: Keyspace
    public let retention: Duration

    public init(client: RedisClient, keys: Keyspace = .standard, retention: Duration = Self.defaultRetention) {
        StateStorage.checkTTL(retention, "waiting transaction retention")
        self.client = client
        self.keys = keys
        self.retention = retention
    }

    public func park(_ transaction: VerifiedTransaction, under waitKeys: [WaitKey], at now: Timestamp) async throws
        -> Timestamp
    {
        let recordKey = keys.waitingRecord(transaction.recordKey)
        let ttl = StateStorage.milliseconds(retention)
        let since = try await client.execute(
            EVALSHA<String?>(
                .parkWaitingRecord,
                keys: [recordKey],
                arguments: [
                    .integer(now.millisecondsSince1970), try StateStorage.encodeEvent(transaction), .integer(ttl),
                ]
            ))
        let first = try Self.since(since, key: recordKey)
        var indexing = RedisPipeline()
        for waitKey in waitKeys {
            let index = keys.waitingIndex(waitKey)
            indexing.append(SADD(index, members: [.string(transaction.recordKey)]))
            indexing.append(PEXPIRE(index, milliseconds: ttl))
        }
        if !indexing.isEmpty { try await StateStorage.execute(client, indexing) }
        return first
    }

    public func release(_ waitKey: WaitKey) async throws -> [VerifiedTransaction] {
        let index = keys.waitingIndex(waitKey)
        let recordKeys = try await client.execute(SMEMBERS(index))
        guard !recordKeys.isEmpty else { return [] }
        var reads = RedisPipeline()
        let slots = recordKeys.map { recordKey in
            reads.append(HMGET(keys.waitingRecord(recordKey), fields: ["since", "transaction"]))
        }
        let replies = try await StateStorage.execute(client, reads)
        var released: [(since: Timestamp, recordKey: String, transaction: VerifiedTransaction)] = []
        for (recordKey, slot) in zip(recordKeys, slots) {
            let key = keys.waitingRecord(recordKey)
            let fields = try replies[slot]
            // Expired since it was indexed (a forgotten record leaves its indexes).
            guard let json = fields[1] else { continue }
            let since = try Self.since(fields[0].map { String(decoding: $0, as: UTF8.self) }, key: key)
            released.append(
                (since, recordKey, try StateStorage.decodeEvent(VerifiedTransaction.self, from: json, key: key)))
        }
        // First parked first, as they arrived (a set has no order of its own).
        return released.sorted { ($0.since, $0.recordKey) < ($1.since, $1.recordKey) }.map(\.transaction)
    }

    public func forget(recordKey: String, under waitKeys: [WaitKey]) async throws {
        // Match forgets every transaction it decides, and most were never parked: they pay the
        // `DEL` alone, as before D70. A failure between the two steps leaves names of a gone
        // record in an index, which a release skips and the index's expiry drops.
        guard try await client.execute(DEL(keys.waitingRecord(recordKey))) > 0, !waitKeys.isEmpty else { return }
        var unindexing = RedisPipeline()
        for waitKey in waitKeys {
            unindexing.append(SREM(keys.waitingIndex(waitKey), members: [.string(recordKey)]))
        }
        try await StateStorage.execute(client, unindexing)
    }

    private static func since(_ text: String?, key: String) throws(StateDecodingError) -> Timestamp {
        guard let text, let milliseconds = Int64(text) else {
            throw StateDecodingError(
                key: key, expected: "first-parked time (UNIX ms)",
                detail: "found \(text.map { "'\($0)'" } ?? "nothing")")
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
}
