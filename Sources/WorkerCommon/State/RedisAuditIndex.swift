public import Contracts
public import Customers
public import Pipeline
public import Redis

/// The customer state stage's index of the audit trail (D51): each delivery's and each
/// transaction's entries, the read copy behind a purchase event's status and a transaction's
/// history.
///
/// Writing is a set union (a hash field per ``AuditEntry/auditId``), so entries indexed in any
/// order, twice, or again from `iap.audit` after Redis lost them leave the same hashes. Each key
/// expires `retention` after its latest entry: statuses answer "did it go through" and support's
/// "what happened", not the years a customer's purchases are kept (those are `iap.customers`).
public struct RedisAuditIndex: Sendable {
    /// 7 days: the state stage's `audit` window.
    public static let defaultRetention: Duration = .seconds(7 * 24 * 3600)

    private let client: RedisClient
    public let keys: Keyspace
    private let retention: Duration

    public init(client: RedisClient, keys: Keyspace = .standard, retention: Duration = Self.defaultRetention) {
        StateStorage.checkTTL(retention, "audit retention")
        self.client = client
        self.keys = keys
        self.retention = retention
    }

    /// Adds each entry under its delivery and its transactions (a verify entry under every
    /// transaction it lists), in one round trip. Entries without a bundle id name no app a
    /// reader could ask under: they stay in the topic only. Returns how many were indexed.
    @discardableResult
    public func index(_ entries: [AuditEntry]) async throws -> Int {
        try await self.index(entries.map { ($0, try EventEncoder.encode($0)) })
    }

    /// ``index(_:)`` of entries as read from the trail, each stored as the bytes it was read
    /// from: the trail's records are the stored form already (the same encoder wrote them), so
    /// the state stage does not encode again what it just decoded.
    @discardableResult
    public func index(_ entries: [(entry: AuditEntry, bytes: [UInt8])]) async throws -> Int {
        var pipeline = RedisPipeline()
        var indexed = 0
        let ttl = StateStorage.milliseconds(retention)
        for (entry, bytes) in entries {
            guard let bundleId = entry.bundleId else { continue }
            let value = RedisValue.bytes(bytes)
            var targets: [String] = []
            if let delivery = entry.subject.delivery {
                targets.append(keys.auditDelivery(bundleId: bundleId, delivery: delivery))
            }
            targets += entry.transactionsNamed.map { keys.auditTransaction(bundleId: bundleId, transactionId: $0) }
            for key in targets {
                pipeline.append(HSET(key, field: entry.auditId, value: value))
                pipeline.append(PEXPIRE(key, milliseconds: ttl))
            }
            if !targets.isEmpty { indexed += 1 }
        }
        if indexed > 0 { try await StateStorage.execute(client, pipeline) }
        return indexed
    }

    /// The entries naming the delivery `e:<eventId>` of the app.
    public func status(bundleId: String, eventId: String) async throws -> PurchaseStatus? {
        let entries = try await read(keys.auditDelivery(bundleId: bundleId, delivery: "e:\(eventId)"))
        return PurchaseStatus(eventId: eventId, bundleId: bundleId, entries: entries)
    }

    /// The transaction's entries and those of the deliveries that brought it.
    public func history(bundleId: String, transactionId: String) async throws -> TransactionHistory? {
        let own = try await read(keys.auditTransaction(bundleId: bundleId, transactionId: transactionId))
        var pipeline = RedisPipeline()
        let reads = TransactionHistory.deliveries(of: own).map {
            pipeline.append(HGETALL(keys.auditDelivery(bundleId: bundleId, delivery: $0)))
        }
        var entries = own
        if !reads.isEmpty {
            let replies = try await StateStorage.execute(client, pipeline)
            for read in reads {
                entries += try decode(try replies[read], key: "delivery")
            }
        }
        return TransactionHistory(transactionId: transactionId, bundleId: bundleId, entries: entries)
    }

    private func read(_ key: String) async throws -> [AuditEntry] {
        try decode(try await client.execute(HGETALL(key)), key: key)
    }

    private func decode(_ fields: [(field: String, value: [UInt8])], key: String) throws -> [AuditEntry] {
        try fields.map { try StateStorage.decodeEvent(AuditEntry.self, from: $0.value, key: key) }
    }
}
