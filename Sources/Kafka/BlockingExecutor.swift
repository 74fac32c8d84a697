import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking librdkafka calls (commits, watermark queries, metadata, flush, teardown) on
/// GCD threads.
///
/// Swift's cooperative pool has one thread per core; a call that blocks for seconds on a
/// broker round trip would starve every other task in the worker. GCD grows its pool for
/// blocked work, so these calls wait there instead.
package enum BlockingExecutor {
    private static let queue = DispatchQueue(label: "iap.kafka.blocking", qos: .utility, attributes: .concurrent)

    package static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E)
        -> T
    {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(E) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Runs a teardown a `deinit` cannot await (`rd_kafka_destroy` joins librdkafka's threads):
    /// the `deinit` returns at once, and the process's exit waits for what is still running
    /// (at most ``exitWait``), so no handle is torn down while `exit` runs the libraries'
    /// cleanup (OpenSSL's among them) under it.
    ///
    /// Every `deinit` used to destroy its handle in place, on whichever thread released it
    /// last, usually one of the cooperative pool's: a test process with hundreds of clients had
    /// both of its threads blocked for seconds, and every other task stalled behind them.
    package static func detach(_ teardown: @escaping @Sendable () -> Void) {
        _ = waitsAtExit
        queue.async(group: pending, execute: teardown)
    }

    /// The longest the process's exit waits for teardowns still running.
    private static let exitWait: Duration = .seconds(10)

    private static let pending = DispatchGroup()

    /// Registered once, on the first teardown: handlers run in the reverse order of
    /// registration, so this one runs before those of libraries loaded earlier.
    private static let waitsAtExit: Void = {
        atexit {
            let seconds = Double(BlockingExecutor.exitWait.components.seconds)
            _ = BlockingExecutor.pending.wait(timeout: .now() + seconds)
        }
    }()
}
