import FuzzChecks

/// libFuzzer entry point of `FuzzCheck.receipt` (Fuzz/Checks, which the root package's
/// `FuzzCorpusTests` also replay over `Corpus/FuzzReceipt`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReceipt(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzCheck.receipt.runForLibFuzzer(start, count)
}
