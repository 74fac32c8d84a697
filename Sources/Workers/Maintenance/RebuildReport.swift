import Kafka

/// What a rebuild of Redis state from a compacted topic found and did (the order index, the
/// ownership bindings, grant's states): the worker logs its ``summary``, `iap orders rebuild`
/// prints it.
public struct RebuildReport: Codable, Equatable, Sendable {
    /// Records read, tombstones and malformed ones included.
    public var records = 0
    /// Distinct keys left after keeping the latest record per key.
    public var values = 0
    /// Values written to Redis.
    public var written = 0
    /// Values Redis held already (kept as they were).
    public var alreadyPresent = 0
    /// Records of another schema or not JSON (skipped and logged).
    public var malformed = 0
    /// Keys whose latest record is a tombstone.
    public var deleted = 0

    public init() {}

    init(_ snapshot: CompactedTopicSnapshot<some Sendable>, written: Int) {
        records = snapshot.records
        values = snapshot.latest.count
        self.written = written
        alreadyPresent = values - written
        malformed = snapshot.malformed
        deleted = snapshot.deleted
    }

    /// One line for the worker's log.
    public var summary: String {
        "\(written) written, \(alreadyPresent) present, \(deleted) deleted, \(malformed) malformed of \(records) records"
    }
}
