public import AppStore
public import AppStoreModels
public import Purchases

/// Every Apple call reconcile makes, through the shared gate (``RedisAppleCallGate``, one
/// timeline per endpoint) and Apple's own back-off: a slot of the budget is slept for; a 429
/// pauses the endpoint for every replica and is slept through too (waiting is not failing);
/// any other `retry` outcome (5xx, a timeout) waits what the classifier says, at least, and
/// tries again, up to ``attempts`` failures; then the run fails and the next one resumes from
/// the checkpoint. Each app's calls go through its own gate (Apple's limits are per app; D57).
public struct ReconcileApple: Sendable {
    let gates: @Sendable (_ bundleId: String) -> any AppleCallGate
    let attempts: Int
    let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameter gates: the gate of each app's calls, by bundle id.
    public init(
        gates: @escaping @Sendable (_ bundleId: String) -> any AppleCallGate, attempts: Int = 5,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.gates = gates
        self.attempts = max(1, attempts)
        self.sleep = sleep
    }

    /// Every app's calls through one gate.
    public init(
        gate: any AppleCallGate, attempts: Int = 5,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.init(gates: { _ in gate }, attempts: attempts, sleep: sleep)
    }

    public func call<Value: Sendable>(
        _ endpoint: AppleCall.Endpoint, environment: AppStoreEnvironment, app bundleId: String,
        _ body: () async throws(AppStoreAPIError) -> Value
    ) async throws -> Value {
        let gate = gates(bundleId)
        let call = AppleCall(endpoint, environment: environment)
        var failures = 0
        var booking: GateBooking?
        while true {
            // A slot is booked for the caller: sleeping until it and calling is the whole wait.
            if case .wait(let slot) = try await gate.acquire(call, holding: booking) { try await sleep(slot.delay) }
            booking = nil
            do throws(AppStoreAPIError) {
                return try await body()
            } catch {
                guard case .retry(let after, let reason) = error.outcome else { throw error }
                if let slot = try await gate.heed(after, reason, for: call) {
                    // Apple's 429: every replica holds back; this call goes on its slot after it.
                    try await sleep(slot.delay)
                    booking = slot.booking
                    continue
                }
                failures += 1
                guard failures < attempts else { throw error }
                try await sleep(after)
            }
        }
    }
}
