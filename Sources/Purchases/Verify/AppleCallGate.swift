public import AppStore
import Basics

/// Consulted before every call to Apple, so all verify replicas together stay under Apple's
/// per-app rate limits (50 requests/s for Get Transaction Info in production, 10 % of that
/// in sandbox, enforced hourly). The Redis implementation shares the budget across replicas.
public protocol AppleCallGate: Sendable {
    func acquire(_ call: AppleCall) async throws -> GateDecision

    /// Apple answered 429 with this `Retry-After`: every caller sharing the gate holds `call`
    /// back until then. Apple's limits are per app, so one replica's 429 is every replica's;
    /// without this each replica would spend a call of its own to learn it.
    func backOff(_ call: AppleCall, for delay: Duration) async throws
}

extension AppleCallGate {
    /// Every caller's step after Apple answered `call` with "retry later": a 429 (the only
    /// `rateLimited` retry Apple gives) pauses `call` for everyone sharing the gate.
    public func heed(_ after: Duration, _ reason: RetryReason, for call: AppleCall) async throws {
        if reason.code == .rateLimited { try await self.backOff(call, for: after) }
    }
}

/// One call verify, reconcile or grant (answering consumption requests) is about to make.
public struct AppleCall: Hashable, Sendable {
    public enum Endpoint: String, Hashable, Sendable {
        case transactionInfo
        case verifyReceipt
        /// Send Consumption Information (grant, answering CONSUMPTION_REQUEST).
        case consumption
        /// Get Notification History (reconcile).
        case notificationHistory
        /// Get All Subscription Statuses (reconcile's sweep).
        case subscriptionStatuses
    }

    public var endpoint: Endpoint
    public var environment: AppStoreEnvironment

    public init(_ endpoint: Endpoint, environment: AppStoreEnvironment) {
        self.endpoint = endpoint
        self.environment = environment
    }
}

/// Whether a call may go out now.
public enum GateDecision: Hashable, Sendable {
    case proceed
    /// The budget is spent; the request is retried after this long.
    case wait(Duration)
}

/// A token bucket per endpoint and environment, for one process.
public actor InMemoryAppleCallGate: AppleCallGate {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let productionRate: Double
    private let sandboxRate: Double
    private var buckets: [AppleCall: Bucket] = [:]
    private var pausedUntil: [AppleCall: ContinuousClock.Instant] = [:]

    /// - Parameters:
    ///   - callsPerSecond: production budget per endpoint; the bucket holds one second of it.
    ///   - sandboxShare: sandbox gets this share of the production budget (Apple: 10 %).
    public init(callsPerSecond: Double = 50, sandboxShare: Double = 0.1) {
        self.productionRate = max(callsPerSecond, 0.001)
        self.sandboxRate = max(callsPerSecond * sandboxShare, 0.001)
    }

    public func acquire(_ call: AppleCall) -> GateDecision {
        let now = ContinuousClock.now
        if let until = self.pausedUntil[call], now < until { return .wait(now.duration(to: until)) }
        let rate = call.environment == .production ? self.productionRate : self.sandboxRate
        let capacity = max(rate, 1)
        var bucket = self.buckets[call] ?? Bucket(tokens: capacity, updated: now)
        let elapsed = bucket.updated.duration(to: now)
        let seconds = elapsed.seconds
        bucket.tokens = min(capacity, bucket.tokens + seconds * rate)
        bucket.updated = now
        defer { self.buckets[call] = bucket }
        guard bucket.tokens >= 1 else {
            return .wait(.milliseconds(Int64(((1 - bucket.tokens) / rate * 1000).rounded(.up))))
        }
        bucket.tokens -= 1
        return .proceed
    }

    /// A later, shorter `Retry-After` never shortens a pause already in force.
    public func backOff(_ call: AppleCall, for delay: Duration) {
        let until = ContinuousClock.now + delay
        if self.pausedUntil[call].map({ $0 < until }) ?? true { self.pausedUntil[call] = until }
    }
}
