public import AppStore
public import AppStoreModels
import Basics

/// Consulted before every call to Apple, so all replicas together stay under Apple's per-app
/// rate limits (50 requests/s for Get Transaction Info in production, 10 % of that in sandbox,
/// enforced hourly). The Redis implementation shares the budget across replicas.
///
/// A call that may not go now gets a **slot**: a time booked for it in the budget, after the
/// slots booked before it. Callers that wait hold their booking and hand it back when its time
/// comes, so a backlog drains at the budget in the order it arrived, each record waking at its
/// own time instead of all of them at once, and waiting costs the record nothing but time: a
/// wait is never a failed attempt (decision D36).
public protocol AppleCallGate: Sendable {
    /// May `call` go out now? `booking` is a slot this gate booked for the caller earlier: at its
    /// time it lets the call through without taking a second place in the budget; early, it is
    /// waited for again; while Apple's pause holds, or long after its time, a new slot is booked.
    func acquire(_ call: AppleCall, holding booking: GateBooking?) async throws -> GateDecision

    /// Apple answered 429 with this `Retry-After`: every caller sharing the gate holds `call`
    /// back until then. Apple's limits are per app, so one replica's 429 is every replica's;
    /// without this each replica would spend a call of its own to learn it. Returns the slot
    /// booked for the caller after the pause.
    func backOff(_ call: AppleCall, for delay: Duration) async throws -> GateSlot
}

extension AppleCallGate {
    /// `acquire` for a caller that holds a record: a slot at most `holdLimit` away is slept
    /// for here (parking the record would cost more than the wait), then the call goes out on
    /// its booking; a later one is handed back for the caller to park the record until then.
    public func admit(_ call: AppleCall, holding booking: GateBooking?, sleepingUpTo holdLimit: Duration)
        async throws -> GateAdmission
    {
        switch try await acquire(call, holding: booking) {
        case .proceed:
            return .proceed
        case .wait(let slot) where slot.delay <= holdLimit:
            try await Task.sleep(for: slot.delay)
            return .proceed
        case .wait(let slot):
            return .later(slot)
        }
    }

    /// Every caller's step after Apple answered `call` with "retry later". A 429 (the only
    /// `rateLimited` retry Apple gives) is not the record's failure: it pauses `call` for
    /// everyone sharing the gate and returns the caller's slot after the pause. Anything else
    /// is a failure the caller retries (nil).
    public func heed(_ after: Duration, _ reason: RetryReason, for call: AppleCall) async throws -> GateSlot? {
        guard reason.code == .rateLimited else { return nil }
        return try await self.backOff(call, for: after)
    }
}

/// One call verify, reconcile or grant (answering consumption requests) is about to make.
public struct AppleCall: Hashable, Sendable {
    public enum Endpoint: String, Hashable, Sendable, CaseIterable {
        case transactionInfo
        case verifyReceipt
        /// Send Consumption Information (grant, answering CONSUMPTION_REQUEST).
        case consumption
        /// Get Notification History (reconcile).
        case notificationHistory
        /// Get All Subscription Statuses (reconcile's sweep).
        case subscriptionStatuses
        /// Finish Transaction (confirm, after a grant).
        case finishTransaction
        /// Set App Account Token (confirm, after a match by order or user; `iap support`).
        case setAppAccountToken
        /// Get App Transaction Info (`iap support`).
        case appTransactionInfo
        /// Extend a Subscription Renewal Date (`iap support extend`).
        case extendRenewalDate
        /// Extend Renewal Dates for All Active Subscribers and its status (`iap support extend`).
        case massExtension

        /// Apple's own limit for the endpoint in production, calls per second (Apple's
        /// "Identifying rate limits"; sandbox gets 10 %): the gate never books faster, whatever
        /// `IAP_APPLE_RATE_LIMIT` says. nil where Apple publishes none (verifyReceipt).
        public var appleLimit: Double? {
            switch self {
            case .transactionInfo, .consumption, .notificationHistory, .subscriptionStatuses, .finishTransaction,
                .appTransactionInfo:
                50
            case .setAppAccountToken, .extendRenewalDate: 20
            case .massExtension: 1
            case .verifyReceipt: nil
            }
        }
    }

    public var endpoint: Endpoint
    public var environment: AppStoreEnvironment

    public init(_ endpoint: Endpoint, environment: AppStoreEnvironment) {
        self.endpoint = endpoint
        self.environment = environment
    }

    /// `apple:<endpoint>:<environment>`: what a record waiting for this call waits for
    /// (`iap_waiting_records{waiting_for}`), spelled as the gate's Redis key names the call.
    public var waitingLabel: String { "apple:\(endpoint.rawValue):\(environment.rawValue)" }
}

/// Whether a call may go out now.
public enum GateDecision: Hashable, Sendable {
    case proceed
    /// Not now: a slot is booked for the call.
    case wait(GateSlot)
}

/// What ``AppleCallGate/admit(_:holding:sleepingUpTo:)`` leaves to its caller.
public enum GateAdmission: Hashable, Sendable {
    /// Call Apple now.
    case proceed
    /// Park the record until the slot and come back holding its booking.
    case later(GateSlot)
}

/// A time booked for one call, and how far away it is.
public struct GateSlot: Hashable, Sendable {
    /// Why the call waits.
    public enum Cause: String, Hashable, Sendable {
        /// Our own budget (`IAP_APPLE_RATE_LIMIT`) is booked up to the slot.
        case budget
        /// Apple answered 429 and asked everyone to hold back (its `Retry-After`).
        case applePause = "apple_pause"
    }

    /// From now until the slot.
    public var delay: Duration
    public var booking: GateBooking
    public var cause: Cause

    public init(delay: Duration, booking: GateBooking, cause: Cause) {
        self.delay = delay
        self.booking = booking
        self.cause = cause
    }

    /// The reason a record parked for this slot gives.
    public var reason: String {
        switch cause {
        case .budget:
            "Apple call budget for \(booking.call.endpoint.rawValue) in \(booking.call.environment) is booked; "
                + "slot \(booking)"
        case .applePause:
            "Apple asked to hold \(booking.call.endpoint.rawValue) in \(booking.call.environment) back (429); "
                + "slot \(booking)"
        }
    }
}

/// A slot booked for one call: the call and its time on the gate's clock (UNIX milliseconds;
/// the Redis server's clock for the shared gate). A record carries it while it waits, as
/// `<endpoint>:<environment>@<ms>` (`transactionInfo:Production@1764160000000`).
public struct GateBooking: Hashable, Sendable, LosslessStringConvertible {
    public var call: AppleCall
    public var at: Int64

    public init(_ call: AppleCall, at: Int64) {
        self.call = call
        self.at = at
    }

    public var description: String { "\(call.endpoint.rawValue):\(call.environment.rawValue)@\(at)" }

    /// Nil for anything that is not a booking's description (a foreign or damaged memo is no
    /// booking: the call books a new slot).
    public init?(_ description: String) {
        let parts = description.split(separator: "@")
        guard parts.count == 2, let at = Int64(parts[1]) else { return nil }
        let call = parts[0].split(separator: ":", maxSplits: 1)
        guard call.count == 2, let endpoint = AppleCall.Endpoint(rawValue: String(call[0])), !call[1].isEmpty else {
            return nil
        }
        self.init(AppleCall(endpoint, environment: AppStoreEnvironment(rawValue: String(call[1]))), at: at)
    }
}
