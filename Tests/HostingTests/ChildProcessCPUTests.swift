import Processes
import Testing

/// `ChildProcess.cpuSeconds`: what `iap-dev bench compare --bench stage` charges a run.
@Suite(.timeLimit(.minutes(1))) struct ChildProcessCPUTests {
    /// A shell loop that spends CPU, not wall time, in a grandchild the child waits for.
    static let busyGrandchild = "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; true"

    @Test func aChildsCPUCountsTheChildrenItWaitedFor() async throws {
        let child = try ChildProcess(
            name: "busy", executable: "/bin/sh", arguments: ["-c", Self.busyGrandchild], output: .discard)
        #expect(await child.waitForExit() == 0)
        // The loop alone takes tenths of a second of CPU on any machine; a reading of only the
        // outer shell (which waits, spending almost nothing) falls far below this.
        let seconds = try #require(child.cpuSeconds)
        #expect(seconds > 0.02)
    }

    @Test func aSleepingChildIsChargedLessThanItsWallTime() async throws {
        let child = try ChildProcess(
            name: "sleeper", executable: "/bin/sh", arguments: ["-c", "sleep 0.5"], output: .discard)
        #expect(child.cpuSeconds == nil)  // while it runs (it sleeps half a second)
        let clock = ContinuousClock()
        let started = clock.now
        _ = await child.waitForExit()
        let wall = (clock.now - started)
        let seconds = try #require(child.cpuSeconds)
        #expect(seconds < 0.25 && wall > .milliseconds(400))
    }
}
