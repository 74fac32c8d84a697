import AppStore
import AppStoreModels
import Purchases
import Reconcile
import Synchronization
import Testing

/// Reconcile's calls to Apple wait out Apple's answers and share what a 429 says.
@Suite(.timeLimit(.minutes(1))) struct ReconcileAppleTests {
    /// An in-memory gate that also notes every pause it is told of.
    final class NotingGate: AppleCallGate {
        let base = InMemoryAppleCallGate(callsPerSecond: 1000)
        let pauses = Mutex<[AppleCall: Duration]>([:])

        func acquire(_ call: AppleCall, holding booking: GateBooking?) async throws -> GateDecision {
            await base.acquire(call, holding: booking)
        }

        func backOff(_ call: AppleCall, for delay: Duration) async throws -> GateSlot {
            pauses.withLock { $0[call] = delay }
            return await base.backOff(call, for: delay)
        }
    }

    @Test func a429PausesTheSharedGateAndIsWaitedOut() async throws {
        let gate = NotingGate()
        let slept = Mutex<[Duration]>([])
        let apple = ReconcileApple(gate: gate) { delay in
            slept.withLock { $0.append(delay) }
            try await Task.sleep(for: delay)
        }
        let calls = Mutex(0)
        let answer = try await apple.call(.notificationHistory, environment: .production, app: "com.example.game") {
            () throws(AppStoreAPIError) -> String in
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            guard call > 1 else {
                throw AppStoreAPIError(
                    outcome: .retry(after: .milliseconds(300), reason: RetryReason(.rateLimited, "HTTP 429")),
                    environment: .production, httpStatus: 429)
            }
            return "page"
        }
        #expect(answer == "page")
        #expect(calls.withLock { $0 } == 2)
        // Waiting is not failing: a 429 never uses up the run's attempts.
        // Verify's replicas and other reconcile runs sharing the gate were held back as long...
        #expect(
            gate.pauses.withLock { $0 } == [
                AppleCall(.notificationHistory, environment: .production): .milliseconds(300)
            ])
        // ...and this call waited the pause out before asking again.
        #expect(slept.withLock { $0 }.reduce(.zero, +) > .milliseconds(200))
    }

    @Test func applesRateLimitIsNeverChargedToTheAttempts() async throws {
        let apple = ReconcileApple(gate: NotingGate(), attempts: 2) { _ in }
        let calls = Mutex(0)
        let answer = try await apple.call(.notificationHistory, environment: .production, app: "com.example.game") {
            () throws(AppStoreAPIError) -> Int in
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            guard call > 5 else {
                throw AppStoreAPIError(
                    outcome: .retry(after: .milliseconds(1), reason: RetryReason(.rateLimited, "HTTP 429")),
                    environment: .production, httpStatus: 429)
            }
            return call
        }
        #expect(answer == 6)
    }

    @Test func otherRetryableAnswersWaitWithoutPausingTheGate() async throws {
        let gate = NotingGate()
        let slept = Mutex<[Duration]>([])
        let apple = ReconcileApple(gate: gate) { delay in slept.withLock { $0.append(delay) } }
        let calls = Mutex(0)
        _ = try await apple.call(.subscriptionStatuses, environment: .sandbox, app: "com.example.game") {
            () throws(AppStoreAPIError) -> Int in
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            guard call > 1 else {
                throw AppStoreAPIError(
                    outcome: .retry(after: .seconds(5), reason: RetryReason(.serverError, "HTTP 503")),
                    environment: .sandbox, httpStatus: 503)
            }
            return call
        }
        #expect(slept.withLock { $0 } == [.seconds(5)])
        #expect(gate.pauses.withLock { $0 }.isEmpty)
    }
}
