public import Customers
public import Pipeline
public import Redis

/// The customer state stage's read copy of each customer's ``CustomerRecord``
/// (`iap:customer:{<bundleId>|<userId>}`), which the read API serves.
///
/// The compacted `iap.customers` is the truth (D49): the stage publishes a record before it
/// saves it here, and ``putIfAbsent(_:)`` restores the copy from that topic after Redis lost its
/// data. With a `fence`, a read that finds no record is checked against the stage's marker, so an
/// emptied Redis is never taken for a new customer (whose first change would then publish a
/// record without the customer's earlier purchases over the topic's).
///
/// One customer's changes reach the stage in order on one lane (`iap.entitlements` is keyed by
/// userId), so a read and the save after it are not raced by another change of the same customer.
public struct RedisCustomerStore: Sendable {
    private let client: RedisClient
    public let keys: Keyspace
    private let fence: GenerationFence?

    /// - Parameter fence: the stage's (``WorkerResources/fence``); nil for readers (the API, tools).
    public init(client: RedisClient, keys: Keyspace = .standard, fence: GenerationFence? = nil) {
        self.client = client
        self.keys = keys
        self.fence = fence
    }

    public func record(bundleId: String, userId: String) async throws -> CustomerRecord? {
        try await storedRecord(bundleId: bundleId, userId: userId).map {
            try decode($0, bundleId: bundleId, userId: userId)
        }
    }

    /// The record as stored, undecoded: a reader that keeps what it rendered from a record
    /// compares these bytes instead of decoding them again (the read API's render cache).
    public func storedRecord(bundleId: String, userId: String) async throws -> [UInt8]? {
        try await StateStorage.get(client, keys.customer(bundleId: bundleId, userId: userId), fence: fence)
    }

    /// Decodes what ``storedRecord(bundleId:userId:)`` read.
    public func decode(_ stored: [UInt8], bundleId: String, userId: String) throws -> CustomerRecord {
        try StateStorage.decodeEvent(
            CustomerRecord.self, from: stored, key: keys.customer(bundleId: bundleId, userId: userId))
    }

    public func save(_ record: CustomerRecord) async throws {
        let key = keys.customer(bundleId: record.bundleId, userId: record.userId)
        var pipeline = RedisPipeline()
        pipeline.append(StateStorage.set(key, try StateStorage.encodeEvent(record), ttl: nil))
        try await StateStorage.execute(client, pipeline)
    }

    /// Writes each record unless Redis holds one for its customer already (saved since the
    /// loss, so newer than the topic's copy). Returns how many were written.
    public func putIfAbsent(_ records: [CustomerRecord], batchSize: Int = 500) async throws -> Int {
        var written = 0
        for start in stride(from: 0, to: records.count, by: batchSize) {
            var pipeline = RedisPipeline()
            let writes = try records[start..<min(start + batchSize, records.count)].map {
                pipeline.append(
                    StateStorage.setIfAbsent(
                        keys.customer(bundleId: $0.bundleId, userId: $0.userId), try StateStorage.encodeEvent($0),
                        ttl: nil))
            }
            let replies = try await StateStorage.execute(client, pipeline)
            for write in writes where try replies[write] { written += 1 }
        }
        return written
    }
}
