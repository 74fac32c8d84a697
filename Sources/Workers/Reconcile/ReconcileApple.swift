public import AppStore
public import Purchases

/// Every Apple call reconcile makes, through the shared rate limiter (the verify replicas'
/// ``RedisAppleCallGate`` buckets, one per endpoint) and Apple's own back-off: a `retry`
/// outcome (5xx, a 429's `Retry-After`, a timeout) waits what the classifier says, at least,
/// and tries again, up to ``attempts`` times; then the run fails and the next one resumes from
/// the checkpoint. A 429 also pauses the endpoint in the shared gate until its `Retry-After`.
public struct ReconcileApple: Sendable {
    let gate: any AppleCallGate
    let attempts: Int
    let sleep: @Sendable (Duration) async throws -> Void

    public init(
        gate: any AppleCallGate, attempts: Int = 5,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.gate = gate
        self.attempts = max(1, attempts)
        self.sleep = sleep
    }

    public func call<Value: Sendable>(
        _ endpoint: AppleCall.Endpoint, environment: AppStoreEnvironment,
        _ body: () async throws(AppStoreAPIError) -> Value
    ) async throws -> Value {
        var failures = 0
        while true {
            if case .wait(let delay) = try await gate.acquire(AppleCall(endpoint, environment: environment)) {
                try await sleep(delay)
                continue
            }
            do throws(AppStoreAPIError) {
                return try await body()
            } catch {
                failures += 1
                guard case .retry(let after, let reason) = error.outcome, failures < attempts else { throw error }
                // A 429 pauses the gate for every replica (and verify); the next acquire waits it
                // out. Anything else is waited here.
                try await gate.heed(after, reason, for: AppleCall(endpoint, environment: environment))
                if reason.code != .rateLimited { try await sleep(after) }
            }
        }
    }
}
