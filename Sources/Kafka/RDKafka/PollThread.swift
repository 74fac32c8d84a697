import Basics
import Foundation
import Synchronization

/// A dedicated OS thread that runs a librdkafka poll loop.
///
/// librdkafka serves callbacks (delivery reports, rebalances, logs) on the thread that polls,
/// and a poll blocks for its timeout. Running that loop on its own thread keeps it off Swift's
/// cooperative pool entirely, so a busy broker never starves the worker's tasks.
final class PollThread: Sendable {
    private let stopRequested = StopFlag()
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `loop`, which is called repeatedly until `stop()` is requested, then `finish` once.
    /// `name` is what `top -H` and `perf` show (at most 15 bytes are kept).
    init(name: String, loop: @escaping @Sendable () -> Void, finish: @escaping @Sendable () -> Void = {}) {
        let thread = Thread { [stopRequested, finished] in
            nameCurrentThread(name)
            while !stopRequested.isSet {
                loop()
            }
            finish()
            finished.signal()
        }
        thread.start()
    }

    /// Asks the loop to end and waits, off the cooperative pool, until `finish` has run.
    func stop() async {
        stopRequested.set()
        await BlockingExecutor.run { [finished] in
            finished.wait()
            finished.signal()  // let a second stop() return too
        }
    }
}

/// A flag shared with the poll thread (an `Atomic` cannot be captured directly).
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
