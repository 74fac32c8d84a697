import Foundation
import FuzzChecks
import Testing

/// The fuzz corpora as unit tests: every seed and every `found-*` input of an earlier finding
/// goes through its target's check on each `make test`, so a regression of a fixed finding
/// fails here without the sanitizer build of `make fuzz-smoke`.
@Suite(.timeLimit(.minutes(2))) struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    static func inputs(of check: FuzzCheck) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(
            at: corpus.appendingPathComponent(check.rawValue), includingPropertiesForKeys: nil
        ).sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// A finding or a trap fails; and some seeds must be accepted by the decoder, or the checks
    /// behind decoding (two readers agreeing, numbers that fit) never ran.
    @Test(arguments: FuzzCheck.allCases) func everyInputOfTheCorpusPassesItsCheck(_ check: FuzzCheck) async throws {
        let inputs = try Self.inputs(of: check)
        #expect(!inputs.isEmpty, "Fuzz/Corpus/\(check.rawValue) has no inputs")
        var accepted = 0
        for input in inputs {
            do {
                if try await check.check(Array(try Data(contentsOf: input))) { accepted += 1 }
            } catch {
                Issue.record("Fuzz/Corpus/\(check.rawValue)/\(input.lastPathComponent): \(error)")
            }
        }
        #expect(accepted > 0, "no input of Fuzz/Corpus/\(check.rawValue) got past decoding")
    }
}
