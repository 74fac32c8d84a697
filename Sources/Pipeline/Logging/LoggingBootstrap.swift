public import Logging

/// How worker logs are written.
public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's human-readable stream handler, for terminals.
    case text
    /// ``JSONLogHandler``, one object per line, for log shippers.
    case json
}

/// Installs the process-wide log handler once at start-up.
///
/// ## Environment
/// - `IAP_LOG_FORMAT`: `text` (default) or `json`.
/// - `IAP_LOG_LEVEL`: a swift-log level (`trace` ... `critical`), default `info`.
public enum LoggingBootstrap {
    /// Bootstraps swift-log; both formats redact secret-looking metadata keys.
    /// May only be called once per process (a swift-log rule).
    public static func bootstrap(format: LogFormat, level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            makeHandler(format: format, level: level, label: label)
        }
    }

    /// Reads `IAP_LOG_FORMAT` and `IAP_LOG_LEVEL`, rejecting unknown values with a message
    /// that lists the accepted ones.
    public static func settings(environment: [String: String]) throws -> (format: LogFormat, level: Logger.Level) {
        let formatText = environment["IAP_LOG_FORMAT"] ?? LogFormat.text.rawValue
        guard let format = LogFormat(rawValue: formatText.lowercased()) else {
            throw LoggingSettingsError(message: "IAP_LOG_FORMAT must be text or json, got '\(formatText)'")
        }
        let levelText = environment["IAP_LOG_LEVEL"] ?? Logger.Level.info.rawValue
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            let known = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw LoggingSettingsError(message: "IAP_LOG_LEVEL must be one of \(known), got '\(levelText)'")
        }
        return (format, level)
    }

    static func makeHandler(format: LogFormat, level: Logger.Level, label: String) -> any LogHandler {
        var handler: any LogHandler =
            switch format {
            case .json: JSONLogHandler(label: label)
            case .text:
                RedactingLogHandler(
                    wrapping: StreamLogHandler.standardError(label: label, metadataProvider: LoggingSystem.metadataProvider.map(LogRedaction.redacting))
                )
            }
        handler.logLevel = level
        return handler
    }
}

/// A log settings value in the environment was not understood.
public struct LoggingSettingsError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
