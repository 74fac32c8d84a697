import ArgumentParser
import Foundation
import Hosting
import Logging
import Pipeline
public import Settings

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Entry point of `iap-reconcile`: flags, the settings layer, then one ``ReconcileProcess``
/// until SIGTERM or SIGINT. `catalog` is every setting of every executable (`SettingsCatalog.pipeline`,
/// which `main` links): names with the `IAP_` prefix outside it are refused.
public enum ReconcileMain {
    public static func run(catalog: SettingsCatalog) async {
        let command: ReconcileCommand
        do {
            command = try ReconcileCommand.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            ReconcileCommand.exit(withError: error)
        }
        do {
            let reader = try await SettingsReader.load()
            try catalog.refuseUnknownNames(in: reader)
            let host = try HostSettings(process: "iap-reconcile", reader: reader)
            LoggingBootstrap.bootstrap(format: host.logFormat, level: host.logLevel)
            var settings = try ReconcileSettings(reader: reader)
            if let path = command.pipeline { settings.worker.pipelinePath = path }
            try await ReconcileProcess(settings: settings, logger: Logger(label: "iap-reconcile")).run()
        } catch {
            FileHandle.standardError.write(Data("iap-reconcile: \(error)\n".utf8))
            exit(1)
        }
    }
}

/// The flags of `iap-reconcile`; unknown flags are refused.
struct ReconcileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iap-reconcile",
        abstract:
            "Every IAP_RECONCILE_INTERVAL_SECONDS, republishes Apple's notification history from its checkpoint and sweeps"
            + " subscriptions active past their expiry, until SIGTERM or SIGINT.",
        discussion: """
            Settings come from the environment, then the file IAP_CONFIG_FILE names, then defaults: KAFKA_BROKERS, REDIS_URL, \
            IAP_PIPELINE, IAP_OPS_PORT, verify's Apple keys (IAP_BUNDLE_ID, IAP_APPLE_KEY_ID, IAP_APPLE_ISSUER_ID, \
            IAP_APPLE_PRIVATE_KEY_PATH, ...) and IAP_RECONCILE_*. `iap config keys` lists every key; docs/operations.md, \
            "Reconcile", says what a run does.
            """,
        version: BuildInfo.versionLine
    )

    @Option(help: "The pipeline file (overrides IAP_PIPELINE; default pipelines/iap.yaml).") var pipeline: String?
}
