import Foundation
import Pipeline
import Testing
import Topology

/// One edge (issue 20): a topic is named in the pipeline file (and once in Topology's defaults,
/// ``TopicRole/defaultName``), a setting in its `Setting` declaration, and the environment is
/// read by the settings layer alone. Code that spelt `"iap.rejected"` or `"IAP_OPS_PORT"`
/// itself would go on using the old name after the file or the declaration changed.
@Suite(.timeLimit(.minutes(2))) struct EdgeTests {
    /// Where a topic name may be spelt: Topology's defaults.
    static let topicHome = "Topology/TopicRole.swift"

    /// String literals that look like topic names (`"iap.<name>"`), in code (not comments),
    /// leaving out schema names (`iap.purchase.v1`) and what merely shares the prefix: logger
    /// and queue labels, `CodingUserInfoKey`s and span attribute names.
    static func topicLiterals(in text: String) throws -> [String] {
        let literal = try Regex(#""(iap\.[a-z0-9][a-z0-9.-]*)""#)
        let schema = try Regex(#"\.v[0-9]+$"#)
        let labels = ["label:", "logger(", "rawValue:", "attributes["]
        var found: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false)
        where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            for match in line.matches(of: literal) {
                let name = String(line[match.range].dropFirst().dropLast())
                let before = line[..<match.range.lowerBound].trimmingCharacters(in: .whitespaces)
                guard name.firstMatch(of: schema) == nil, !labels.contains(where: before.hasSuffix) else { continue }
                found.append(name)
            }
        }
        return found
    }

    @Test func noTopicNameIsSpeltOutsideTopologysDefaults() throws {
        var found: [String] = []
        for (path, text) in try SettingsTableTests.sources() where path != Self.topicHome {
            found += try Self.topicLiterals(in: text).map { "\(path): \($0)" }
        }
        #expect(found.isEmpty, "resolve these by role from the pipeline file (PipelineFile.topic(_:)): \(found)")
    }

    /// The scan is what the guard above trusts: it must see a topic wherever code spells one.
    @Test func theTopicScanFindsTopicsAndPassesLabelsSchemasAndComments() throws {
        let text = """
            var rejectTopic = "iap.rejected"
            let observer = try TopicObserver(topics: ["iap.entitlements", "iap.verify.dlq"])
            let logger = Logger(label: "iap.orders")
            let other = CLILogging.logger("iap.notifications", level: .critical)
            let schema = "iap.purchase.v1"
            static var key: CodingUserInfoKey { CodingUserInfoKey(rawValue: "iap.eventCases")! }
            span.attributes["iap.stage"] = stage
            // Publishes to "iap.purchases".
            """
        #expect(try Self.topicLiterals(in: text) == ["iap.rejected", "iap.entitlements", "iap.verify.dlq"])
    }

    /// The defaults are the shipped file's names, and every stage of it rejects to the one topic
    /// ``TopicRole/rejected`` resolves to (intake's).
    @Test func theDefaultsAreTheShippedFilesTopics() throws {
        let file = try PipelineFile.load(
            path: SettingsTableTests.repository.appendingPathComponent("pipelines/iap.yaml").path)
        for role in TopicRole.allCases {
            #expect(try file.topic(role) == role.defaultName, "\(role)")
        }
        #expect(file.stages.allSatisfy { $0.rejectTopic == TopicRole.rejected.defaultName })
    }

    /// A file that renames a topic renames it for the stack and the commands too.
    @Test func topicsFollowTheFileByRole() throws {
        let file = try PipelineFile.parse(
            yaml: """
                topics:
                  - {name: shop.purchases, partitions: 1}
                  - {name: shop.notifications, partitions: 1}
                  - {name: shop.verify, partitions: 1}
                  - {name: shop.refused, partitions: 1}
                stages:
                  - name: intake
                    consumerGroup: shop-intake
                    inputs: {purchases: shop.purchases, notifications: shop.notifications}
                    outputs: {verify: shop.verify}
                    rejectTopic: shop.refused
                """)
        #expect(try file.topic(.purchases) == "shop.purchases")
        #expect(try file.topic(.notifications) == "shop.notifications")
        #expect(try file.topic(.rejected) == "shop.refused")
        #expect(throws: PipelineFileError.self) { try file.topic(.orders) }
        #expect(throws: PipelineFileError.self) { try ContractTopics(pipeline: file) }
        #expect(try file.stage(.intake).rejects == "shop.refused")
    }

    /// Setting names spelt as literals (`"IAP_OPS_PORT"`) outside the files declaring them:
    /// a process that configures another one writes `HostSettings.opsPort.name`.
    static func settingLiterals(in text: String) throws -> [String] {
        text.matches(of: try Regex(#""(?:IAP|KAFKA|REDIS)_[A-Z0-9_]+""#)).map { String(text[$0.range]) }
    }

    /// Declarations live in the catalogue (`Catalog/`: `HostKeys`, `StageKeys`, …, which the
    /// `*Settings.swift` structs forward), the other `*Settings.swift` and the settings layer itself.
    static func declaresSettings(_ path: String) -> Bool {
        path.hasSuffix("Settings.swift") || path.hasPrefix("Catalog/") || path.hasPrefix("Settings/")
    }

    @Test func settingsAreWrittenThroughTheirDeclarations() throws {
        var found: [String] = []
        for (path, text) in try SettingsTableTests.sources() where !Self.declaresSettings(path) {
            for name in try Self.settingLiterals(in: text)
            where EnvironmentReads.allowed[String(name.dropFirst().dropLast())]?.contains(path) != true {
                found.append("\(path): \(name)")
            }
        }
        #expect(found.isEmpty, "use the Setting's name (e.g. HostSettings.opsPort.name): \(found)")
        // The local stack writes librdkafka properties under the names the processes read back.
        let name = ClusterSettings.settingName(forKafkaProperty: "fetch.wait.max.ms")
        #expect(name == "IAP_KAFKA_FETCH_WAIT_MAX_MS")
        #expect(ClusterSettings.kafkaProperty(named: name) == "fetch.wait.max.ms")
        #expect(
            try Self.settingLiterals(in: #"environment["IAP_OPS_PORT"] = port; let s = "KAFKA_BROKERS""#)
                == [#""IAP_OPS_PORT""#, #""KAFKA_BROKERS""#])
    }

    @Test func nothingReadsTheEnvironmentOutsideTheSettingsLayer() throws {
        var reads: [String] = []
        for (path, text) in try SettingsTableTests.sources() {
            reads += try EnvironmentReads.disallowed(in: text, path: path)
        }
        #expect(reads.isEmpty, "read these through SettingsReader (Settings): \(reads)")
    }

    /// The scan sees every form of read, and lets through only the allow-list's.
    @Test func theEnvironmentScanFindsEveryFormOfRead() throws {
        let text = """
            let brokers = ProcessInfo.processInfo.environment["KAFKA_BROKERS"]
            let all = ProcessInfo.processInfo.environment
            let home = getenv("HOME")
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
            """
        #expect(try EnvironmentReads.disallowed(in: text, path: "iap/Some.swift").count == 5)
        let inStack = try EnvironmentReads.disallowed(in: text, path: "LocalStack/LocalStack.swift")
        #expect(inStack.count == 4, "PATH is allowed there: \(inStack)")
        let inSettings = try EnvironmentReads.disallowed(in: text, path: "Gateway/GatewaySettings.swift")
        #expect(inSettings.count == 4, "a settings value's default environment is allowed: \(inSettings)")
        #expect(try EnvironmentReads.disallowed(in: text, path: "Settings/SettingsReader.swift").isEmpty)
    }
}

/// Where the environment may be read outside the settings layer (the `Settings` module), and why.
enum EnvironmentReads {
    /// By variable name, the files that may read it; `""` is the whole environment.
    static let allowed: [String: Set<String>] = [
        // Process plumbing, no setting: the tools a child runs, and the stack's children, search
        // the same path.
        "PATH": ["Processes/ChildProcess+Command.swift", "LocalStack/LocalStack.swift"],
        // Read below the settings catalogue: LocalServices starts `redis-server` for the local
        // stack, the benchmarks and the tests (TestSupport), and its `Setting`,
        // `SettingsCatalog.redisServer`, is declared in Catalog, above it.
        "REDIS_SERVER": ["LocalServices/LocalRedisServer.swift"],
        // Process plumbing: a child started without an environment inherits this process's.
        "": ["Processes/ChildProcess.swift"],
    ]

    /// Reads of the environment in `text` (the Swift file at `path` below Sources) that are
    /// neither the settings layer's, nor a `*Settings` value's default environment (handed to
    /// its `SettingsReader`), nor on the allow-list.
    static func disallowed(in text: String, path: String) throws -> [String] {
        if path.hasPrefix("Settings/") { return [] }
        let read = try Regex(
            #"ProcessInfo\.processInfo\.environment(?:\[\s*"([A-Z0-9_]+)"\s*\])?|getenv\(\s*"?([A-Z0-9_]*)"#)
        let settingsDefault = "environment: [String: String] = "
        var found: [String] = []
        for match in text.matches(of: read) {
            let subscripted = match.output[1].substring ?? match.output[2].substring
            let name = subscripted.map(String.init) ?? ""
            let before = text[..<match.range.lowerBound]
            let isGetenv = text[match.range].hasPrefix("getenv")
            if !isGetenv, name.isEmpty, path.hasSuffix("Settings.swift"), before.hasSuffix(settingsDefault) { continue }
            if !isGetenv, allowed[name]?.contains(path) == true { continue }
            found.append("\(path): \(text[match.range])")
        }
        return found
    }
}
