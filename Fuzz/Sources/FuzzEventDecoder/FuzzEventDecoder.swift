import FuzzChecks

/// libFuzzer entry point of `FuzzCheck.eventDecoder` (Fuzz/Checks, which the root package's
/// `FuzzCorpusTests` also replay over `Corpus/FuzzEventDecoder`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventDecoder(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzCheck.eventDecoder.runForLibFuzzer(start, count)
}
