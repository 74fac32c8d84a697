public import AppStore
public import AppStoreModels
import Contracts
public import Foundation
public import Logging
public import Purchases
public import WorkerCommon

/// One reconcile run over every configured app and environment, then the sweep (decision D32):
/// what `iap-reconcile` does every interval and `iap reconcile` does once.
///
/// Each scope is paged only by the replica holding its lease; a scope another replica holds is
/// left to it (reported as not paged). The sweep has a lease of its own.
public struct Reconciler: Sendable {
    /// What a run is told besides its collaborators.
    public struct Options: Sendable {
        /// How far back a scope without a checkpoint starts.
        public var lookback: Duration = .seconds(86_400)
        /// Apple's `onlyFailures`: page only notifications Apple could not deliver.
        public var onlyFailures = false
        /// Past-expiry subscriptions asked about per run, at most.
        public var dueLimit = 500
        /// Other active subscriptions asked about per run.
        public var sampleSize = 0
        /// Whether to sweep subscriptions at all.
        public var sweep = true
        /// How long a lease lasts without a page being checkpointed (each page extends it).
        public var leaseTTL: Duration = .seconds(120)

        public init() {}
    }

    /// Where reconcile's events go (the pipeline file's topics).
    public struct Topics: Sendable {
        public var notifications: String
        public var purchases: String

        public init(notifications: String, purchases: String) {
            self.notifications = notifications
            self.purchases = purchases
        }
    }

    let clients: [(scope: ReconcileScope, client: AppStoreServerAPIClient)]
    let apple: ReconcileApple
    let state: any ReconcileStateStore
    let index: any SubscriptionExpiryIndex
    let entitlements: any EntitlementStateStore
    let publisher: any ReconcilePublisher
    let topics: Topics
    let options: Options
    let now: @Sendable () -> Timestamp
    let logger: Logger

    /// - Parameter clients: one Server API client per scope, bound to its app and environment
    ///   (no sandbox fallback: each scope's history is its own).
    public init(
        clients: [(scope: ReconcileScope, client: AppStoreServerAPIClient)], apple: ReconcileApple,
        state: any ReconcileStateStore, index: any SubscriptionExpiryIndex, entitlements: any EntitlementStateStore,
        publisher: any ReconcilePublisher, topics: Topics, options: Options = Options(),
        now: @escaping @Sendable () -> Timestamp = { Timestamp(Date()) }, logger: Logger
    ) {
        self.clients = clients
        self.apple = apple
        self.state = state
        self.index = index
        self.entitlements = entitlements
        self.publisher = publisher
        self.topics = topics
        self.options = options
        self.now = now
        self.logger = logger
    }

    /// One run. Throws when Apple, Kafka or Redis failed past their retries; what was
    /// checkpointed before stays, and the next run resumes there.
    public func run(progress: @Sendable (ReconcileProgress) -> Void = { _ in }) async throws -> ReconcileReport {
        var report = ReconcileReport()
        for (scope, client) in clients {
            var scopeReport = ReconcileReport.Scope(
                bundleId: scope.bundleId, environment: scope.environment.rawValue, paged: false)
            guard let lease = try await state.acquire(scope.name, ttl: options.leaseTTL) else {
                logger.debug("another replica pages this scope", metadata: ["scope": "\(scope)"])
                report.scopes.append(scopeReport)
                continue
            }
            scopeReport.paged = true
            let pager = NotificationHistoryPager(
                scope: scope, client: client, apple: apple, state: state, publisher: publisher,
                topic: topics.notifications, lookback: options.lookback, onlyFailures: options.onlyFailures, now: now,
                logger: logger)
            do {
                try await pager.run(holding: lease, into: &scopeReport, progress: progress)
            } catch {
                try? await state.release(lease)
                throw error
            }
            try await state.release(lease)
            report.scopes.append(scopeReport)
        }
        guard options.sweep else { return report }
        guard let lease = try await state.acquire(Self.sweepScope, ttl: options.leaseTTL) else { return report }
        report.swept = true
        let sweep = SubscriptionSweep(
            clients: clients, apple: apple, index: index, states: entitlements, publisher: publisher,
            topic: topics.purchases, dueLimit: options.dueLimit, sampleSize: options.sampleSize, now: now,
            logger: logger)
        do {
            try await sweep.run(into: &report, progress: progress) {
                guard try await state.extend(lease) else { throw LeaseLost(scope: Self.sweepScope) }
            }
        } catch {
            try? await state.release(lease)
            throw error
        }
        try await state.release(lease)
        return report
    }

    /// Another replica holds the scope now (a long pause let the lease lapse): this one stops.
    struct LeaseLost: Error, CustomStringConvertible {
        var scope: String
        var description: String { "lost the lease of \(scope); another replica continues" }
    }

    /// The sweep's lease name (not an app: bundle ids never lack a dot).
    static let sweepScope = "sweep"

    /// The age of `scope`'s checkpoint: how far behind now its next window starts (nil: none yet).
    public func checkpointAge(_ scope: ReconcileScope) async throws -> Duration? {
        try await state.checkpoint(scope.name).map { now().duration(since: $0.nextStart) }
    }

    public var scopes: [ReconcileScope] { clients.map(\.scope) }
}
