public import AppStoreModels
public import Contracts

/// What a waiting transaction can be released by.
public enum WaitKey: Hashable, Sendable, CustomStringConvertible {
    /// The Apple-signed token (canonical): released when an order with this token arrives.
    case appAccountToken(String)
    /// The publisher's orderId hint: released when that order arrives.
    case orderId(String)

    /// A flat string form for key-value stores (`token:<uuid>`, `order:<orderId>`).
    public var description: String {
        switch self {
        case .appAccountToken(let token): "token:\(token)"
        case .orderId(let orderId): "order:\(orderId)"
        }
    }
}

/// Verified transactions match could not tie to a user yet (decision D9).
///
/// Each record is kept under its ``VerifiedTransaction/recordKey`` with the time it was first
/// parked (the start of its wait window) and indexed by the keys that can release it.
///
/// A release does not consume what it returns (decision D70): the order that released a record
/// can fail or die before it publishes it, and its next delivery must find the record again, or
/// the purchase waits out its whole window for an order already indexed. A record leaves its
/// keys only when match forgets it, once its released copy is matched, rejected or given up on.
public protocol WaitingTransactionStore: Sendable {
    /// Parks `transaction` under `keys` unless it is parked already; returns when it was first parked.
    func park(_ transaction: VerifiedTransaction, under keys: [WaitKey], at now: Timestamp) async throws -> Timestamp
    /// The records parked under `key`. Releasing again returns them again until they are
    /// forgotten: each copy is the same record, and match's idempotency makes a second one a
    /// duplicate. A released record that still finds no user keeps its original window.
    func release(_ key: WaitKey) async throws -> [VerifiedTransaction]
    /// Drops a record that was matched, rejected or given up on, and its place under `keys`
    /// (the keys it was parked under).
    func forget(recordKey: String, under keys: [WaitKey]) async throws
}

/// In-process ``WaitingTransactionStore``.
public actor InMemoryWaitingTransactionStore: WaitingTransactionStore {
    private var records: [String: (transaction: VerifiedTransaction, since: Timestamp)] = [:]
    private var index: [WaitKey: [String]] = [:]

    public init() {}

    public func park(_ transaction: VerifiedTransaction, under keys: [WaitKey], at now: Timestamp) -> Timestamp {
        let recordKey = transaction.recordKey
        for key in keys where !(self.index[key] ?? []).contains(recordKey) {
            self.index[key, default: []].append(recordKey)
        }
        if let existing = self.records[recordKey] { return existing.since }
        self.records[recordKey] = (transaction, now)
        return now
    }

    public func release(_ key: WaitKey) -> [VerifiedTransaction] {
        (self.index[key] ?? []).compactMap { self.records[$0]?.transaction }
    }

    public func forget(recordKey: String, under keys: [WaitKey]) {
        self.records[recordKey] = nil
        for key in keys {
            self.index[key]?.removeAll { $0 == recordKey }
            if self.index[key]?.isEmpty == true { self.index[key] = nil }
        }
    }

    /// How many records are parked (for tests and diagnostics).
    public var count: Int { self.records.count }
}
