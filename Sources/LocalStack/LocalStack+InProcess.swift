import Catalog
import Gateway
import Hosting
import Logging
import ReadAPI
import Reconcile
import Settings
import Topology
import Workers

extension LocalStack {
    /// An executable's assembly as a task of this process, reading `environment` the way the
    /// executable reads its own (unknown `IAP_` names refused, as `main` refuses them).
    static func inProcessMember(
        _ name: String, executable: String, environment: [String: String], logPath: String
    ) throws -> InProcessMember {
        let reader = SettingsReader(environment: environment)
        try SettingsCatalog.pipeline.refuseUnknownNames(in: reader)
        let host = try HostSettings(process: executable, reader: reader)
        let run: @Sendable (Logger, ProcessHost.Stop) async throws -> Void
        if let stage = StageName.allCases.first(where: { $0.executable == executable }) {
            run = { logger, stop in try await WorkerMain.run(stage, reader: reader, logger: logger, until: stop) }
        } else if executable == "iap-reconcile" {
            let settings = try ReconcileSettings(reader: reader)
            run = { logger, stop in try await ReconcileProcess(settings: settings, logger: logger).run(until: stop) }
        } else if executable == "iap-gateway" {
            let settings = try GatewaySettings(reader: reader)
            run = { logger, stop in try await Gateway(settings: settings, logger: logger).run(until: stop) }
        } else if executable == "iap-api" {
            let settings = try ReadAPISettings(reader: reader)
            run = { logger, stop in try await ReadAPI(settings: settings, logger: logger).run(until: stop) }
        } else {
            throw LocalStackError("\(executable) has no in-process form")
        }
        return try InProcessMember(name: name, logPath: logPath, level: host.logLevel, run)
    }
}
