import Pipeline
import Testing
import Topology

@Suite(.timeLimit(.minutes(2))) struct RetryPolicyTests {
    let exact = RetryPolicy(
        initialBackoff: .seconds(1), maxBackoff: .seconds(60), multiplier: 2, jitter: 0, maxAttempts: 5)

    @Test func growsExponentiallyUpToTheCap() {
        let delays = (1...9).map { exact.delay(forAttempt: $0) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
    }

    @Test func attemptBelowOneIsTreatedAsTheFirst() {
        #expect(exact.delay(forAttempt: 0) == .seconds(1))
        #expect(exact.delay(forAttempt: -3) == .seconds(1))
    }

    @Test func hugeAttemptNumbersStayAtTheCap() {
        #expect(exact.delay(forAttempt: 10_000) == .seconds(60))
        #expect(exact.delay(forAttempt: Int.max) == .seconds(60))
    }

    @Test func jitterStaysWithinItsFractionAndTheCap() {
        let policy = RetryPolicy(
            initialBackoff: .seconds(10), maxBackoff: .seconds(100), multiplier: 3, jitter: 0.25, maxAttempts: 5)
        var generator = SeededGenerator(seed: 42)
        var distinct: Set<Duration> = []
        for _ in 0..<500 {
            let first = policy.delay(forAttempt: 1, using: &generator)
            #expect(first >= .milliseconds(7500) && first <= .milliseconds(12500))
            distinct.insert(first)
            let capped = policy.delay(forAttempt: 4, using: &generator)
            #expect(capped >= .seconds(75) && capped <= .seconds(100))
        }
        #expect(distinct.count > 1)
    }

    @Test func neverEarlierThanRetryAfter() {
        #expect(exact.delay(forAttempt: 1, retryAfter: .seconds(90)) == .seconds(90))
        #expect(exact.delay(forAttempt: 3, retryAfter: .seconds(2)) == .seconds(4))
        let jittered = RetryPolicy(
            initialBackoff: .seconds(1), maxBackoff: .seconds(10), multiplier: 2, jitter: 1, maxAttempts: 3)
        var generator = SeededGenerator(seed: 7)
        for attempt in 1...20 {
            #expect(jittered.delay(forAttempt: attempt, retryAfter: .seconds(5), using: &generator) >= .seconds(5))
        }
    }

    @Test func budgetCountsEveryAttempt() {
        #expect(exact.allowsRetry(afterAttempts: 4))
        #expect(!exact.allowsRetry(afterAttempts: 5))
    }
}
