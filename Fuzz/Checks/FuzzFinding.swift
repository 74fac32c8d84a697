/// What a fuzz check found: an input that a decoder accepted but handled wrongly (two readers
/// that disagree, a number that would trap further on). libFuzzer's entry points turn it into a
/// `fatalError`, so libFuzzer keeps the input; the corpus replay tests fail with it.
///
/// Inputs that trap on their own (the bug class the checks exist for) trap in both places.
public struct FuzzFinding: Error, CustomStringConvertible {
    public let description: String

    init(_ problem: String) {
        description = problem
    }
}

/// The four checks by the name of their libFuzzer target and corpus directory (`Fuzz/Corpus/<name>`).
public enum FuzzCheck: String, CaseIterable, Sendable {
    case eventDecoder = "FuzzEventDecoder"
    case jws = "FuzzJWS"
    case receipt = "FuzzReceipt"
    case pipelineFile = "FuzzPipelineFile"

    /// Runs the check on one input; true when a decoder accepted it (so the checks behind the
    /// decoding ran, not only the refusal path).
    @discardableResult
    public func check(_ bytes: [UInt8]) async throws(FuzzFinding) -> Bool {
        switch self {
        case .eventDecoder: try checkEventDecoder(bytes)
        case .jws: try await checkJWS(bytes)
        case .receipt: checkReceipt(bytes)
        case .pipelineFile: try checkPipelineFile(bytes)
        }
    }
}
