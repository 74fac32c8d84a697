import ArgumentParser
import Catalog
import Foundation
import Gateway
import Hosting
import Kafka
import Logging
import Pipeline
import ProductCatalog
import Reconcile
import Settings
import Topology
import WorkerCommon
import Workers

/// `iap config keys|check`: every setting in one table, and a configuration checked the way the
/// executables will read it, before a deployment finds out by restart-looping.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "List every setting, or check a configuration the way the executables read it.",
        subcommands: [Keys.self, Check.self]
    )

    struct Keys: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every setting of every executable (the table of docs/operations.md) as Markdown."
        )

        func run() {
            print(SettingsCatalog.pipeline.markdown, terminator: "")
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the effective settings (secrets redacted) and refuse what a process would refuse.",
            discussion: """
                Reads the environment, then the file IAP_CONFIG_FILE names, then defaults, exactly as the executables \
                do. Refuses unknown IAP_ keys, values that break a key's rule, keys a stage cannot run without, \
                unreadable key or certificate files, and pipeline files whose stages lack a topic role, name an \
                unknown window or hold durations that do not outlast each other, and a product catalog (--catalog or \
                IAP_PRODUCT_CATALOG) with an unknown field, a product listed twice or in two types, or a product \
                that unlocks or credits against its type. Exits 1 after listing every problem.
                """
        )

        enum Process: String, ExpressibleByArgument, CaseIterable {
            case intake, verify, match, grant, state, confirm, gateway, reconcile
        }

        @Option(
            name: .long,
            help:
                "Check only this process (repeatable): \(Process.allCases.map(\.rawValue).joined(separator: ", ")). Default: the six workers and the gateway."
        )
        var stage: [Process] = []

        @Option(name: .long, help: "The pipeline file (overrides IAP_PIPELINE).") var pipeline: String?
        @Option(name: .long, help: "The product catalog file (overrides IAP_PRODUCT_CATALOG).") var catalog: String?

        func run() async throws {
            let reader = try await SettingsReader.load()
            var problems: [String] = []
            func attempt(_ body: () throws -> Void) {
                do { try body() } catch { problems.append("\(error)") }
            }
            attempt { try SettingsCatalog.pipeline.refuseUnknownNames(in: reader) }
            if let file = reader.filePath { print("settings file: \(file)") }
            let processes = stage.isEmpty ? [.intake, .verify, .match, .grant, .state, .confirm, .gateway] : stage
            var file: PipelineFile?
            let path = try pipeline ?? reader.value(ClusterSettings.pipeline)
            attempt { file = try PipelineFile.load(path: path) }
            if let catalogPath = try catalog ?? reader.optional(ProductCatalogKeys.file) {
                attempt {
                    let catalog = try CatalogFile.load(path: catalogPath)
                    let products = catalog.apps.values.map(\.count).reduce(0, +)
                    print("product catalog: \(catalogPath) (\(catalog.apps.count) apps, \(products) products)")
                }
            }
            // librdkafka checks every IAP_KAFKA_ property (its name, its value, the TLS files it
            // names) when a client is made, as each process makes its clients at start.
            attempt {
                _ = try CLISettings(reader: reader).cluster(brokers: nil).admin(
                    clientId: "iap-config-check", logger: CLILogging.logger("iap.config", level: .critical))
            }
            for process in processes {
                print("\n[\(process.rawValue)]")
                for section in sections(for: process) { show(section, reader) }
                if process == .gateway {
                    attempt {
                        var settings = try GatewaySettings(reader: reader)
                        if let pipeline { settings.pipelinePath = pipeline }
                        try settings.validate()
                        if settings.topic == nil, let file { _ = try GatewaySettings.notificationsTopic(in: file) }
                    }
                    continue
                }
                if process == .reconcile {
                    attempt {
                        var settings = try ReconcileSettings(reader: reader)
                        if let pipeline { settings.worker.pipelinePath = pipeline }
                        for app in settings.apple.apps where settings.bundleIds.contains(app.bundleId) {
                            _ = try settings.apple.serverAPIConfiguration(for: app)
                        }
                        if let file { _ = (try file.topic(.notifications), try file.topic(.purchases)) }
                    }
                    continue
                }
                guard let name = StageName(rawValue: process.rawValue) else { continue }
                attempt { _ = try WorkerSettings(stage: name.rawValue, reader: reader) }
                attempt {
                    let settings = try StageSettings(stage: name, reader: reader)
                    for path in settings.rootCertificatePaths + settings.apps.compactMap(\.appleKey?.privateKeyPath) {
                        guard FileManager.default.isReadableFile(atPath: path) else {
                            throw ValidationError("\(process.rawValue): cannot read \(path)")
                        }
                    }
                }
                if let file {
                    attempt { try StageLayout.of(name).check(try file.stage(name), in: file) }
                }
            }
            print("")
            guard problems.isEmpty else {
                for problem in problems { print("refused: \(problem)") }
                throw ExitCode.failure
            }
            print(
                "ok: \(processes.map(\.rawValue).joined(separator: ", ")) would start with these settings and \(path)")
        }

        private func sections(for process: Process) -> [SettingsSection] {
            let common = [HostSettings.section, ClusterSettings.section]
            switch process {
            case .gateway: return common + [GatewaySettings.section]
            case .grant:
                let consumption = StageSettings.sections.filter { $0.title == "Consumption" }
                return common + [RedisSettings.section, WorkerSettings.section] + consumption
            case .confirm:
                let confirm = StageSettings.sections.filter { $0.title == "Confirm" || $0.title == "Verify" }
                return common + [RedisSettings.section, WorkerSettings.section] + confirm
            case .reconcile:
                let verify = StageSettings.sections.filter { $0.title == "Verify" }
                return common + [RedisSettings.section, WorkerSettings.section] + verify + [ReconcileSettings.section]
            default:
                let own = StageSettings.sections.filter { $0.title.lowercased() == process.rawValue }
                return common + [RedisSettings.section, WorkerSettings.section] + own
            }
        }

        private func show(_ section: SettingsSection, _ reader: SettingsReader) {
            defer { if section.title == ClusterSettings.section.title { showKafkaProperties(reader) } }
            for setting in section.settings {
                let shown: String
                let source: String
                if let (text, from) = reader.lookup(setting.name) {
                    shown = setting.redact(text)
                    source = from.rawValue
                } else if let defaultText = setting.defaultText {
                    shown = defaultText
                    source = "default"
                } else {
                    shown = "(unset)"
                    source = "-"
                }
                print("  \(setting.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(shown)  [\(source)]")
            }
        }

        /// The `IAP_KAFKA_*` pass-through as librdkafka will see it, secrets redacted.
        private func showKafkaProperties(_ reader: SettingsReader) {
            for (name, _) in reader.values(withPrefix: ClusterSettings.kafkaPropertyPrefix).sorted(by: {
                $0.key < $1.key
            }) {
                guard let (text, from) = reader.lookup(name) else { continue }
                let property = ClusterSettings.kafkaProperty(named: name)
                let shown = ClusterSettings.isSecretKafkaProperty(property) ? "***" : text
                print(
                    "  \(name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(shown)  [\(from.rawValue); librdkafka \(property)]"
                )
            }
        }
    }
}
