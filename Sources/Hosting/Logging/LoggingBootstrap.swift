public import Logging

/// How worker logs are written.
public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's human-readable stream handler, for terminals.
    case text
    /// ``JSONLogHandler``, one object per line, for log shippers.
    case json
}

/// Installs the process-wide log handler once at start-up (format and level: ``HostSettings``).
public enum LoggingBootstrap {
    /// Bootstraps swift-log; both formats redact secret-looking metadata keys.
    /// May only be called once per process (a swift-log rule).
    public static func bootstrap(format: LogFormat, level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            makeHandler(format: format, level: level, label: label)
        }
    }

    static func makeHandler(format: LogFormat, level: Logger.Level, label: String) -> any LogHandler {
        var handler: any LogHandler =
            switch format {
            case .json: JSONLogHandler(label: label)
            case .text:
                RedactingLogHandler(
                    wrapping: StreamLogHandler.standardError(
                        label: label, metadataProvider: LoggingSystem.metadataProvider.map(LogRedaction.redacting))
                )
            }
        handler.logLevel = level
        return handler
    }
}
