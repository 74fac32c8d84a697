import Dispatch

extension FuzzCheck {
    /// What each target's `LLVMFuzzerTestOneInput` does: the check on libFuzzer's input, and a
    /// finding as a `fatalError`, so libFuzzer stops and saves the input like any other crash.
    public func runForLibFuzzer(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
        let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
        do throws(FuzzFinding) {
            switch self {
            case .eventDecoder: _ = try checkEventDecoder(bytes)
            case .receipt: _ = checkReceipt(bytes)
            case .pipelineFile: _ = try checkPipelineFile(bytes)
            case .jws:
                // libFuzzer calls the entry point synchronously; the verifier is async.
                let done = DispatchSemaphore(value: 0)
                Task {
                    _ = await checkJWS(bytes)
                    done.signal()
                }
                done.wait()
            }
        } catch {
            fatalError(error.description)
        }
        return 0
    }
}
