import ArgumentParser
import Foundation
public import Hosting
public import Logging
import Pipeline
public import Settings
public import Topology
import WorkerCommon

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Entry point of the four worker executables: flags, then the settings layer (environment,
/// then `IAP_CONFIG_FILE`, then defaults), then the pipeline file; then one ``Worker`` (one
/// `ServiceGroup`) until SIGTERM or SIGINT. `catalog` is every setting of every executable
/// (`SettingsCatalog.pipeline`, which each `main` links): names with the `IAP_` prefix outside it are refused.
public enum WorkerMain {
    public static func run(_ stage: StageName, catalog: SettingsCatalog) async {
        let command: WorkerCommand
        do {
            command = try WorkerCommand.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            WorkerCommand.exit(withError: error)
        }
        do {
            let reader = try await SettingsReader.load()
            try catalog.refuseUnknownNames(in: reader)
            let host = try HostSettings(process: stage.rawValue, reader: reader)
            LoggingBootstrap.bootstrap(format: host.logFormat, level: host.logLevel)
            try await run(
                stage, reader: reader, pipelinePath: command.pipeline, logger: Logger(label: stage.executable),
                until: .signals())
        } catch let lost as StateLost {
            FileHandle.standardError.write(Data("\(stage.executable): \(lost)\n".utf8))
            exit(stateLostExitCode)
        } catch {
            FileHandle.standardError.write(Data("\(stage.executable): \(error)\n".utf8))
            exit(1)
        }
    }

    /// One stage from its settings until `stop`: what the executable runs once its flags and
    /// logging are set up, and what an in-process stack (`LocalStack`'s in-process members) runs
    /// with a dictionary for an environment. Throws ``StateLost`` where the executable exits 75.
    ///
    /// - Parameter pipelinePath: the `--pipeline` flag, which wins over `IAP_PIPELINE`.
    public static func run(
        _ stage: StageName, reader: SettingsReader, pipelinePath: String? = nil, logger: Logger,
        until stop: ProcessHost.Stop
    ) async throws {
        var settings = try WorkerSettings(stage: stage.rawValue, reader: reader)
        if let pipelinePath { settings.pipelinePath = pipelinePath }
        let pipeline = try PipelineFile.load(path: settings.pipelinePath)
        let spec = try pipeline.stage(stage)
        try StageLayout.of(stage).check(spec, in: pipeline)
        let assembly = StageAssembly(
            stage: stage, spec: spec, file: pipeline, settings: settings,
            stageSettings: try StageSettings(stage: stage, reader: reader), logger: logger, stop: stop
        )
        try await assembly.run()
    }

    /// The exit code of a worker that stopped because Redis lost its stage's state (EX_TEMPFAIL):
    /// restart it and it rebuilds; supervisors and the soak tell it apart from a crash.
    public static let stateLostExitCode: Int32 = 75
}

/// The flags of a worker executable; unknown flags are refused.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        // The executable's own name (iap-intake, ...) in usage and errors.
        commandName: URL(fileURLWithPath: CommandLine.arguments.first ?? "iap-worker").lastPathComponent,
        abstract:
            "Runs one stage of the pipeline file until SIGTERM or SIGINT, which drains in-flight work, commits and leaves the group.",
        discussion: """
            Settings come from the environment, then the file IAP_CONFIG_FILE names, then defaults: KAFKA_BROKERS, REDIS_URL, \
            IAP_PIPELINE, IAP_OPS_PORT, IAP_LOG_FORMAT, IAP_KAFKA_<property> and the stage's keys. `iap config keys` lists \
            every key, `iap config check --stage <stage>` checks a configuration; the table is in docs/operations.md.
            """,
        version: BuildInfo.versionLine
    )

    @Option(help: "The pipeline file (overrides IAP_PIPELINE; default pipelines/iap.yaml).") var pipeline: String?
}
