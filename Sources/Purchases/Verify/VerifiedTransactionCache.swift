public import Contracts

/// Transactions already verified, by transactionId.
///
/// One purchase often arrives three times (StoreKit 2 upload, StoreKit 1 receipt, Apple's
/// notification); whichever is verified first fills the cache and the others skip their
/// Apple call. Entries are Apple-verified facts, so any TTL is only about storage.
public protocol VerifiedTransactionCache: Sendable {
    func get(transactionId: String) async throws -> TransactionDetails?
    /// Replaces any entry for the same transactionId (the newest verified view wins).
    func put(_ transaction: TransactionDetails) async throws
}

/// In-process ``VerifiedTransactionCache`` for tests and single-process tools.
public actor InMemoryVerifiedTransactionCache: VerifiedTransactionCache {
    private var entries: [String: TransactionDetails] = [:]

    public init() {}

    public func get(transactionId: String) -> TransactionDetails? {
        self.entries[transactionId]
    }

    public func put(_ transaction: TransactionDetails) {
        self.entries[transaction.transactionId] = transaction
    }
}
