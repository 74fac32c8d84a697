public import Contracts

/// A transaction's history (D51): every stage's decision about it, oldest first, including the
/// decisions about the events and notifications that brought it before Apple named it (intake's
/// `accepted`, verify's `verified` of a receipt of several purchases).
public struct TransactionHistory: Codable, Hashable, Sendable {
    public var transactionId: String
    public var bundleId: String
    public var entries: [AuditEntry]

    /// The history from the entries naming the transaction and those of its deliveries; nil
    /// when none is about it. A delivery's entries about its other transactions are left out.
    public init?(transactionId: String, bundleId: String, entries: [AuditEntry]) {
        let about = entries.filter { entry in
            entry.transactionsNamed.contains(transactionId) || (entry.transactionId == nil && entry.transactions == nil)
        }
        guard about.contains(where: { $0.transactionId == transactionId || $0.transactions != nil }) else {
            return nil
        }
        self.transactionId = transactionId
        self.bundleId = bundleId
        self.entries = AuditEntries.ordered(about)
    }

    /// The deliveries (`e:<eventId>`, `n:<notificationUUID>`) whose entries belong in the
    /// history of the transaction `entries` name: a reader fetches theirs too.
    public static func deliveries(of entries: [AuditEntry]) -> [String] {
        AuditEntries.unique(entries.compactMap(\.subject.delivery))
    }
}
