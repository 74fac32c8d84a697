import Foundation
import Hosting
import Testing
import Workers

/// The settings table users read is the one the code reads: `docs/operations.md` holds exactly
/// what `iap config keys` prints, and every `IAP_` name the sources spell out is in it.
@Suite(.timeLimit(.minutes(2))) struct SettingsTableTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func theOperationsGuideHoldsTheGeneratedTable() throws {
        let guide = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let begin = try #require(guide.range(of: "<!-- settings:begin"))
        let afterMarker = try #require(guide[begin.upperBound...].range(of: "-->\n"))
        let end = try #require(guide.range(of: "<!-- settings:end -->"))
        let table = String(guide[afterMarker.upperBound..<end.lowerBound])
        #expect(
            table == SettingsCatalog.pipeline.markdown,
            "run `iap config keys` and paste its output between the settings markers")
    }

    @Test func everyKeyHasOneEntry() {
        let names = SettingsCatalog.pipeline.descriptors.map(\.name)
        #expect(Set(names).count == names.count)
    }

    /// A key read by hand somewhere (a string literal) instead of through a `Setting` would
    /// escape the table, the rules and `iap config check`.
    @Test func everyProjectKeyInTheSourcesIsInTheTable() throws {
        let sources = Self.repository.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        let pattern = try Regex(#""(IAP_[A-Z0-9_]+|REDIS_[A-Z0-9_]+|KAFKA_[A-Z0-9_]+)""#)
        var unknown: Set<String> = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                let name = String(text[match.range].dropFirst().dropLast())
                if !SettingsCatalog.pipeline.knows(name), name != "IAP_KAFKA_" {
                    unknown.insert("\(name) in \(file.lastPathComponent)")
                }
            }
        }
        #expect(unknown.isEmpty)
    }
}
