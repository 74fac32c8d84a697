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
public protocol WaitingTransactionStore: Sendable {
    /// Parks `transaction` under `keys` unless it is parked already; returns when it was first parked.
    func park(_ transaction: VerifiedTransaction, under keys: [WaitKey], at now: Timestamp) async throws -> Timestamp
    /// The records parked under `key`, dropping that key's index. The records themselves stay
    /// (with their first-parked time) until ``forget(recordKey:)``: a released record that
    /// still finds no user keeps its original window.
    func release(_ key: WaitKey) async throws -> [VerifiedTransaction]
    /// Drops a record that was matched, rejected or given up on.
    func forget(recordKey: String) async throws
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
        let recordKeys = self.index.removeValue(forKey: key) ?? []
        return recordKeys.compactMap { self.records[$0]?.transaction }
    }

    public func forget(recordKey: String) {
        self.records[recordKey] = nil
    }

    /// How many records are parked (for tests and diagnostics).
    public var count: Int { self.records.count }
}
