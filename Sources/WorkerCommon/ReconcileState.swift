public import AppStoreModels
public import Redis

/// Where paging Get Notification History resumes for one scope (app and environment).
///
/// Windows are `[start, end)` in Apple's signing dates and follow each other without a gap:
/// a finished window moves ``nextStart`` to its end. A window being paged keeps its bounds and
/// the next page's `paginationToken`, so a restart asks for exactly the page after the last one
/// published.
public struct ReconcileCheckpoint: Codable, Hashable, Sendable {
    /// A window of notification history being paged.
    public struct Window: Codable, Hashable, Sendable {
        public var start: Timestamp
        public var end: Timestamp
        /// The next page's token; nil before the first page.
        public var paginationToken: String?
        /// Pages of this window already published.
        public var pagesRead: Int

        public init(start: Timestamp, end: Timestamp, paginationToken: String? = nil, pagesRead: Int = 0) {
            self.start = start
            self.end = end
            self.paginationToken = paginationToken
            self.pagesRead = pagesRead
        }
    }

    /// Everything signed before this was published.
    public var nextStart: Timestamp
    /// The window a run stopped in, if it did not finish it.
    public var window: Window?
    /// Whether the windows ask for `onlyFailures`: a checkpoint is only resumed in its own mode.
    public var onlyFailures: Bool
    /// When it was written.
    public var updatedAt: Timestamp

    public init(nextStart: Timestamp, window: Window? = nil, onlyFailures: Bool = false, updatedAt: Timestamp) {
        self.nextStart = nextStart
        self.window = window
        self.onlyFailures = onlyFailures
        self.updatedAt = updatedAt
    }
}

/// A replica's hold on a scope: only its holder pages the scope or moves its checkpoint.
public struct ReconcileLease: Sendable, Hashable {
    public var scope: String
    public var token: LockToken
    public var ttl: Duration

    public init(scope: String, token: LockToken, ttl: Duration) {
        self.scope = scope
        self.token = token
        self.ttl = ttl
    }
}

/// Reconcile's durable progress: checkpoints, and the leases that let one replica at a time
/// move them (Redis: ``RedisReconcileState``).
public protocol ReconcileStateStore: Sendable {
    func checkpoint(_ scope: String) async throws -> ReconcileCheckpoint?
    /// The lease of `scope` for `ttl`, or nil while another replica holds it.
    func acquire(_ scope: String, ttl: Duration) async throws -> ReconcileLease?
    /// Writes `checkpoint` and extends the lease; false (nothing written) when the lease was lost.
    func save(_ checkpoint: ReconcileCheckpoint, holding lease: ReconcileLease) async throws -> Bool
    /// Extends the lease; false when it was lost.
    func extend(_ lease: ReconcileLease) async throws -> Bool
    func release(_ lease: ReconcileLease) async throws
}

/// Active auto-renewable subscriptions by expiry, as grant saved them (decision D32).
public protocol SubscriptionExpiryIndex: Sendable {
    /// Up to `limit` originalTransactionIds whose expiry (ms since 1970) is at or before `instant`.
    func due(before instant: Int64, limit: Int) async throws -> [String]
    /// Up to `count` members picked at random, due or not.
    func sample(_ count: Int) async throws -> [String]
    func remove(_ originalTransactionId: String) async throws
}
