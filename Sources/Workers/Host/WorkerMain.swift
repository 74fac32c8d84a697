import Foundation
import Logging
import Pipeline

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Entry point of the four worker executables: flags, then environment, then the pipeline
/// file; then one ``Worker`` (one `ServiceGroup`) until SIGTERM or SIGINT.
public enum WorkerMain {
    public static func run(_ stage: StageName) async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let stage = stage == .grant && arguments.contains("--webhook") ? StageName.webhook : stage
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage(stage))
            return
        }
        let environment = ProcessInfo.processInfo.environment
        do {
            let logging = try LoggingBootstrap.settings(environment: environment)
            LoggingBootstrap.bootstrap(format: logging.format, level: logging.level)
            var settings = WorkerSettings(stage: stage.rawValue, environment: environment)
            if let path = try option("--pipeline", in: arguments) { settings.pipelinePath = path }
            let pipeline = try PipelineFile.load(path: settings.pipelinePath)
            let assembly = StageAssembly(
                stage: stage, spec: try pipeline.stage(named: stage.rawValue), settings: settings,
                stageSettings: try StageSettings(environment: environment), logger: Logger(label: stage.executable)
            )
            try await assembly.run()
        } catch let lost as StateLost {
            FileHandle.standardError.write(Data("\(stage.executable): \(lost)\n".utf8))
            exit(stateLostExitCode)
        } catch {
            FileHandle.standardError.write(Data("\(stage.executable): \(error)\n".utf8))
            exit(1)
        }
    }

    /// The exit code of a worker that stopped because Redis lost its stage's state (EX_TEMPFAIL):
    /// restart it and it rebuilds; supervisors and the soak tell it apart from a crash.
    public static let stateLostExitCode: Int32 = 75

    private static func option(_ name: String, in arguments: [String]) throws(StageSettingsError) -> String? {
        guard let index = arguments.firstIndex(of: name) else {
            return arguments.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        guard index + 1 < arguments.count else { throw StageSettingsError("\(name) needs a value") }
        return arguments[index + 1]
    }

    private static func usage(_ stage: StageName) -> String {
        """
        USAGE: \(stage.executable) [--pipeline <path>]\(stage == .grant ? " [--webhook]" : "")

        Runs the \(stage.rawValue) stage of the pipeline file (default pipelines/iap.yaml) until SIGTERM or SIGINT,
        which drains in-flight work, commits and leaves the consumer group.\(stage == .grant ? """

            With --webhook it runs the webhook stage instead: every entitlement change POSTed to IAP_WEBHOOK_URL,
            signed with IAP_WEBHOOK_SECRET (X-IAP-Signature), with an Idempotency-Key, retried and dead-lettered.
            """ : "")

        Settings come from the environment: KAFKA_BROKERS, REDIS_URL, IAP_PIPELINE, IAP_OPS_HOST, IAP_OPS_PORT,
        IAP_SHUTDOWN_GRACE_SECONDS, IAP_LOG_FORMAT, IAP_LOG_LEVEL, IAP_KAFKA_<property>, and the stage keys listed
        in docs/operations.md (IAP_BUNDLE_ID, IAP_APPLE_*, IAP_ENVIRONMENT, IAP_ACCEPT_SANDBOX, ...).
        """
    }
}
