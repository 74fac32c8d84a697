import Dispatch

extension FuzzCheck {
    /// What each target's `LLVMFuzzerTestOneInput` does: ``check(_:)`` on libFuzzer's input, and
    /// a finding as a `fatalError`, so libFuzzer stops and saves the input like any other crash
    /// (its signal handler covers every thread).
    public func runForLibFuzzer(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
        let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
        // libFuzzer calls the entry point synchronously; the checks are async (the JWS verifier is).
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(FuzzFinding) {
                try await check(bytes)
            } catch {
                fatalError(error.description)
            }
            done.signal()
        }
        done.wait()
        return 0
    }
}
