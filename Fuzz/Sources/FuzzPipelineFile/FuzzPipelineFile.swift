import FuzzChecks

/// libFuzzer entry point of `FuzzCheck.pipelineFile` (Fuzz/Checks, which the root package's
/// `FuzzCorpusTests` also replay over `Corpus/FuzzPipelineFile`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipelineFile(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzCheck.pipelineFile.runForLibFuzzer(start, count)
}
