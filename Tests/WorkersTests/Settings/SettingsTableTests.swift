import Catalog
import Foundation
import Settings
import Testing

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

    // Reading the environment outside the settings layer: `EdgeTests`.

    /// Every Kafka client of a process or an `iap` command is made from its `KafkaCluster`, and
    /// every `KafkaCluster` carries the settings' `IAP_KAFKA_*` properties, so no client connects
    /// without the cluster's security settings. Only the Kafka module itself and the embedded
    /// stack and benchmarks, which talk to a mock cluster they start, use bare bootstrap servers.
    @Test func everyKafkaClientIsMadeFromTheClusterSettings() throws {
        let exempt = ["Kafka/", "LocalStack/", "iap-dev/Bench/"]
        let direct = try Regex(#"KafkaProducerConfiguration\(|KafkaConsumerConfiguration\(|KafkaAdmin\("#)
        let cluster = try Regex(#"KafkaCluster\((?:[^()]|\([^()]*\))*\)"#)
        var found: [String] = []
        var clusters = 0
        for (path, text) in try Self.sources() where !exempt.contains(where: path.hasPrefix) {
            for match in text.matches(of: direct) { found.append("\(path): \(text[match.range])") }
            for match in text.matches(of: cluster) {
                clusters += 1
                if !text[match.range].contains("properties: ClusterSettings.kafkaProperties(") {
                    found.append("\(path): \(text[match.range])")
                }
            }
        }
        #expect(clusters >= 5, "the workers', gateway's, lag exporter's, support tools' and the CLI's")
        #expect(found.isEmpty, "make these from the settings' KafkaCluster: \(found)")
    }

    /// Every Swift file under Sources, by its path below Sources.
    static func sources() throws -> [(path: String, text: String)] {
        let sources = repository.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var result: [(String, String)] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let path = String(file.standardizedFileURL.path.dropFirst(sources.standardizedFileURL.path.count + 1))
            result.append((path, try String(contentsOf: file, encoding: .utf8)))
        }
        return result
    }
}
