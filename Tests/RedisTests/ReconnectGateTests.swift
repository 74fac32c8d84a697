import TestSupport
import Testing

@testable import Redis

/// The gate's decisions at given instants: no sleeping, no timing of the machine.
@Suite struct ReconnectGateTests {
    let log = LogCapture()
    let gate: ReconnectGate

    init() throws {
        let configuration = try RedisConfiguration(
            url: "redis://cache", poolSize: 2, connectTimeout: .seconds(1),
            reconnect: RedisConfiguration.Reconnect(initialDelay: .milliseconds(400), maximumDelay: .seconds(10)))
        gate = ReconnectGate(configuration: configuration, logger: log.logger())
    }

    @Test func waitsForANearAttemptAndRefusesAFarOne() throws {
        let start = ContinuousClock.now
        let refused = RedisError(code: .connectionFailed, message: "cache:6379: Connection refused")
        #expect(gate.permission(now: start) == .attempt)
        gate.failed(refused, now: start)
        // Due in 200…400 ms, within the connect timeout: the lane waits.
        guard case .wait(let delay) = gate.permission(now: start) else {
            Issue.record("expected a wait")
            return
        }
        #expect(delay >= .milliseconds(200) && delay <= .milliseconds(400))
        // Due: one lane gets the attempt, the next waits for its outcome.
        let due = start + .milliseconds(400)
        #expect(gate.permission(now: due) == .attempt)
        guard case .wait = gate.permission(now: due) else {
            Issue.record("a second lane should wait for the attempt in flight")
            return
        }
        // Five failures in a row: due in 3.2…6.4 s, beyond the connect timeout: refused at once
        // with the last error's code.
        for _ in 0..<4 { gate.failed(refused, now: due) }
        guard case .refuse(let error) = gate.permission(now: due) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.code == .connectionFailed && error.message.contains("next attempt in"))
        gate.connected(now: due + .seconds(7))
        #expect(gate.permission(now: due + .seconds(7)) == .attempt)
        #expect(log.lines == ["redis unavailable; retrying with backoff", "redis reconnected"])
    }

    @Test func aLossAllowsAnImmediateAttemptAndIsLoggedOnce() {
        let start = ContinuousClock.now
        gate.connected(now: start)
        let lost = RedisError(code: .connectionLost, message: "cache:6379: Server closed the connection")
        gate.lost(lost, now: start)
        gate.lost(lost, now: start)
        #expect(gate.permission(now: start) == .attempt)
        gate.failed(RedisError(code: .connectionFailed, message: "refused"), now: start)
        gate.failed(RedisError(code: .connectionFailed, message: "refused"), now: start)
        gate.failed(RedisError(code: .authenticationFailed, message: "WRONGPASS"), now: start)
        gate.connected(now: start + .seconds(1))
        #expect(
            log.lines == [
                "redis connected", "redis connection lost; reconnecting",
                "redis reconnect failed; retrying with backoff", "redis still unavailable; the reason changed",
                "redis reconnected",
            ])
    }
}
