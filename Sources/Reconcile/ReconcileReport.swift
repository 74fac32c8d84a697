/// What one reconcile run did: `iap reconcile --json` prints it, the worker logs and counts it.
public struct ReconcileReport: Encodable, Hashable, Sendable {
    /// One app and environment's notification history.
    public struct Scope: Codable, Hashable, Sendable {
        public var bundleId: String
        public var environment: String
        /// false when another replica held the scope's lease: this run left it alone.
        public var paged: Bool
        public var pages = 0
        public var notificationsPublished = 0
        /// The checkpoint after the run: everything signed before it was published.
        public var checkpoint: String?
    }

    public var scopes: [Scope] = []
    /// false when another replica held the sweep's lease.
    public var swept = false
    /// Subscriptions asked about (due past their expiry, plus the sample).
    public var subscriptionsSwept = 0
    /// Of those, the ones whose status was published as a reconcile purchase event.
    public var subscriptionsPublished = 0
    /// Of those, the ones Apple did not know (or knew under none of the bundle ids).
    public var subscriptionsNotFound = 0

    public init() {}

    public var pages: Int { scopes.reduce(0) { $0 + $1.pages } }
    public var notificationsPublished: Int { scopes.reduce(0) { $0 + $1.notificationsPublished } }

    private enum CodingKeys: String, CodingKey {
        case scopes, swept, subscriptionsSwept, subscriptionsPublished, subscriptionsNotFound, pages,
            notificationsPublished
    }

    /// The totals too: `iap reconcile --json`'s summary.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scopes, forKey: .scopes)
        try container.encode(pages, forKey: .pages)
        try container.encode(notificationsPublished, forKey: .notificationsPublished)
        try container.encode(swept, forKey: .swept)
        try container.encode(subscriptionsSwept, forKey: .subscriptionsSwept)
        try container.encode(subscriptionsPublished, forKey: .subscriptionsPublished)
        try container.encode(subscriptionsNotFound, forKey: .subscriptionsNotFound)
    }
}

/// Progress of a run as it happens (the CLI's terminal line, the worker's metrics).
public enum ReconcileProgress: Sendable {
    /// One page of `scope`'s history, with the notifications it published.
    case page(scope: String, notifications: Int)
    /// One subscription asked about; `published` when its status was published.
    case subscription(published: Bool)
}
