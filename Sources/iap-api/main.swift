import Catalog
import Foundation
import Hosting
import Logging
import ReadAPI
import Settings

/// `iap-api`: the read API (issue 21; docs/openapi.yaml; settings: docs/operations.md). Settings
/// come from the settings layer (environment, `IAP_CONFIG_FILE`, defaults); SIGTERM drains.
/// `--version` says the build, as every executable of the image does.
if CommandLine.arguments.dropFirst().first == "--version" {
    print(BuildInfo.versionLine)
    exit(0)
}
do {
    let reader = try await SettingsReader.load()
    try SettingsCatalog.pipeline.refuseUnknownNames(in: reader)
    let settings = try ReadAPISettings(reader: reader)
    LoggingBootstrap.bootstrap(format: settings.process.logFormat, level: settings.process.logLevel)
    try await ReadAPI(settings: settings, logger: Logger(label: "iap.api")).run()
} catch {
    FileHandle.standardError.write(Data("iap-api: \(error)\n".utf8))
    exit(1)
}
