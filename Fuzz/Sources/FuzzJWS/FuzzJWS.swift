import FuzzChecks

/// libFuzzer entry point of `FuzzCheck.jws` (Fuzz/Checks, which the root package's
/// `FuzzCorpusTests` also replay over `Corpus/FuzzJWS`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWS(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzCheck.jws.runForLibFuzzer(start, count)
}
