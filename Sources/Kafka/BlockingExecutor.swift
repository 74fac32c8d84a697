import Dispatch

/// Runs blocking librdkafka calls (commits, watermark queries, metadata, flush) on GCD threads.
///
/// Swift's cooperative pool has one thread per core; a call that blocks for seconds on a
/// broker round trip would starve every other task in the worker. GCD grows its pool for
/// blocked work, so these calls wait there instead.
enum BlockingExecutor {
    private static let queue = DispatchQueue(label: "iap.kafka.blocking", qos: .utility, attributes: .concurrent)

    static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
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
}
