public import AppStoreModels
public import Contracts

/// What match decided about one verified transaction.
public enum MatchOutcome: Sendable, Hashable {
    /// Publish to `iap.matched`.
    case matched(MatchedTransaction)
    /// No order or user yet: retry later (the runtime's delayed retry); an order arriving
    /// earlier releases it at once. Give up at `deadline`.
    case wait(since: Timestamp, deadline: Timestamp)
    /// The window passed: publish to `iap.unmatched`.
    case unmatched(UnmatchedTransaction)
    /// `ownership_conflict`: write to `iap.rejected`.
    case reject(Rejection)
}

/// What match did with an order.
public enum OrderOutcome: Sendable, Hashable {
    /// Indexed. Re-publish `released` to `iap.verified`: they waited for this order.
    case indexed(released: [VerifiedTransaction])
    case reject(Rejection)
}
